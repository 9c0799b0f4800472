package com.coreweave.nodepool.api.config;

import io.smallrye.config.ConfigMapping;
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
}
