package com.coreweave.nodepool.api.config;

import com.coreweave.nodepool.api.kube.PageBounds;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.util.Optional;

/** How the api-service pages lists ({@code nodepool.api.list.*}). */
@ConfigMapping(prefix = "nodepool.api.list")
public interface ListSettings {

    /**
     * The secret list continue tokens are signed with (HMAC-SHA256), the same on every instance of the service. Unset,
     * each instance makes its own, and a page is continued only where the list began.
     */
    @WithName("continue-token-secret")
    Optional<String> continueTokenSecret();

    /** Objects in a page of a list that names no {@code limit}; the rest follow with {@code continue}. */
    @WithName("default-limit")
    @WithDefault("500")
    int defaultLimit();

    /** The most objects one page holds, whatever {@code limit} asks (kubectl asks 500). */
    @WithName("max-limit")
    @WithDefault("500")
    int maxLimit();

    /** The most bytes of objects one page holds (as JSON); a page is cut before the object that would pass it. */
    @WithName("max-bytes")
    @WithDefault("1048576")
    long maxBytes();

    default PageBounds pageBounds() {
        return new PageBounds(defaultLimit(), maxLimit(), maxBytes());
    }
}
