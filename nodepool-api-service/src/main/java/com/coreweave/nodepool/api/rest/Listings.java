package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.config.ListSettings;
import com.coreweave.nodepool.api.kube.ContinueToken;
import com.coreweave.nodepool.api.kube.FieldSelector;
import com.coreweave.nodepool.api.kube.JsonSize;
import com.coreweave.nodepool.api.kube.LabelSelector;
import com.coreweave.nodepool.api.kube.PageBounds;
import com.coreweave.nodepool.api.kube.Table;
import com.coreweave.nodepool.kit.rest.ApiException;
import com.coreweave.nodepool.schema.resource.Statuses;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * The read side every resource shares, as the API server's generic handlers: selects a {@link Lister}'s objects by
 * label and field selectors, and answers with the JSON object or list, or with the Table the client asked for.
 */
@ApplicationScoped
class Listings {

    private static final Logger LOG = Logger.getLogger(Listings.class);

    @Inject
    Clock clock;

    @Inject
    Tenancy tenancy;

    @Inject
    ListSettings settings;

    private byte[] tokenSecret;

    @PostConstruct
    void secret() {
        tokenSecret = settings.continueTokenSecret()
                .map(s -> s.getBytes(StandardCharsets.UTF_8))
                .orElseGet(() -> {
                    LOG.warn(
                            "nodepool.api.list.continue-token-secret is not set: list pages are continued only on the instance that "
                                    + "served the first page (others answer 400 and the client lists again); set it on every instance");
                    byte[] random = new byte[32];
                    new SecureRandom().nextBytes(random);
                    return random;
                });
    }

    /** What a list's label and field selectors let through. */
    <T> Predicate<T> selection(Lister<T> lister, ListOptions options) {
        LabelSelector labels = options.labels();
        FieldSelector fields = options.fields(lister.selectableFields());
        return item -> labels.test(lister.labels(item)) && fields.test(lister.fields(item));
    }

    /**
     * A page of the selected objects as a list or a Table ({@code limit}, then {@code continue}), within the server's
     * page bounds ({@link PageBounds}), so no answer holds more than a bounded number of objects and bytes: the pages
     * of one list share the first page's resourceVersion. A continue token whose list can no longer be followed is 410
     * Expired, as Kubernetes answers; a token this server did not issue to this caller (another org's, forged, altered)
     * is 400.
     */
    <T> Object list(Lister<T> lister, ListOptions options, String resourceVersion) {
        Predicate<T> selected = selection(lister, options);
        String version = resourceVersion;
        String after = null;
        if (options.continueToken != null && !options.continueToken.isEmpty()) {
            ContinueToken token;
            try {
                token = ContinueToken.decode(options.continueToken, tokenSecret, tenancy.readScope());
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("invalid continue parameter: " + e.getMessage());
            }
            if (!lister.resumable(token.version())) {
                throw new ApiException(Statuses.failure(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to "
                                + "display a consistent list result. You can start a new list without the continue parameter.",
                        null));
            }
            version = token.version();
            after = token.after();
        }
        PageBounds bounds = settings.pageBounds();
        Lister.Page<T> page = lister.page(options, selected, after, bounds.limit(options.limit));
        int kept = bounds.kept(page.items(), item -> JsonSize.of(item, bounds.maxBytes()));
        if (kept < page.items().size()) {
            page = new Lister.Page<>(
                    page.items().subList(0, kept), lister.key(page.items().get(kept - 1)));
        }
        String next = page.next() == null
                ? null
                : new ContinueToken(tenancy.readScope(), version, page.next()).encode(tokenSecret);
        return options.table()
                ? table(lister, page.items(), options, version, next)
                : lister.listOf(page.items(), version, next);
    }

    /** One object as itself, or as a Table of one row. */
    <T> Object one(Lister<T> lister, T item, ListOptions options) {
        return options.table() ? table(lister, List.of(item), options, null, null) : item;
    }

    <T> Table table(
            Lister<T> lister, List<T> items, ListOptions options, String resourceVersion, String continueToken) {
        Instant now = clock.instant();
        String include = options.includeObject();
        List<Table.Row> rows = items.stream()
                .map(item -> new Table.Row(
                        lister.table().cells(item, now),
                        switch (include) {
                            case "Object" -> item;
                            case "None" -> null;
                            default ->
                                Map.of(
                                        "apiVersion",
                                        "meta.k8s.io/v1",
                                        "kind",
                                        "PartialObjectMetadata",
                                        "metadata",
                                        lister.metadata(item));
                        }))
                .toList();
        return Table.of(resourceVersion, continueToken, lister.table().columns(), rows);
    }
}
