package com.coreweave.nodepool.kit.auth;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;

/**
 * Maps a bearer token to its caller. A normal-scoped bean, so that the request filter (built at static init) gets a
 * proxy and the runtime configuration is read only when the first request arrives.
 */
@ApplicationScoped
public class TokenRealm {

    @Inject
    AuthSettings settings;

    /** The caller a token stands for, or empty for an unknown token. */
    public Optional<Caller> callerOf(String token) {
        String org = settings.tokens().get(token);
        boolean admin = settings.adminTokens().orElse(List.of()).contains(token);
        if (org == null && !admin) {
            return Optional.empty();
        }
        return Optional.of(new Caller(org == null ? "" : org, admin));
    }
}
