package com.coreweave.nodepool.kit.tenancy;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithParentName;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * The one tenancy check of every store read: which keys of a store the caller of the request being served may read,
 * from the store's declared {@link StoreAccess} and the caller's org. Reads outside a request (no caller) fail, so a
 * background path cannot read stores on nobody's behalf by accident.
 */
@ApplicationScoped
public class StoreTenancy {

    /**
     * {@code nodepool.store-access.<store>=by-org|operators|everyone}, one line per store a service serves reads of.
     */
    @ConfigMapping(prefix = "nodepool.store-access")
    public interface Settings {
        @WithParentName
        Map<String, String> stores();
    }

    @Inject
    CurrentCaller caller;

    @Inject
    Settings settings;

    /**
     * The keys of {@code store} the current caller reads; 403 for an operators' store read by an org. A store of no
     * tenant's data is read whoever asks, also outside a request (a watch's feed names the catalogue's types).
     */
    public KeyScope scope(String store) {
        StoreAccess access = access(store);
        return access == StoreAccess.EVERYONE ? KeyScope.ALL : scope(access, caller.get());
    }

    /** The rule itself, for a store of {@code access} read by {@code who}. */
    public static KeyScope scope(StoreAccess access, Caller who) {
        return switch (access) {
            case EVERYONE -> KeyScope.ALL;
            case OPERATORS -> {
                if (!who.admin()) {
                    throw ApiException.forbidden("this needs an operator's token");
                }
                yield KeyScope.ALL;
            }
            case BY_ORG -> who.admin() ? KeyScope.ALL : KeyScope.ofOrg(who.org());
        };
    }

    private StoreAccess access(String store) {
        String declared = settings.stores().get(store);
        if (declared == null) {
            throw new IllegalStateException(
                    "store " + store + " declares no nodepool.store-access, so nobody reads it");
        }
        return StoreAccess.parse(declared);
    }
}
