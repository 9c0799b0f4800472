package com.coreweave.nodepool.kit.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who may call: bearer tokens mapped to orgs, and which tokens are operators' (admin). The stack's local profile ships
 * demo-only tokens; a real deployment sets its own (e.g. NODEPOOL_AUTH_TOKENS__MYTOKEN__=myorg).
 */
@ConfigMapping(prefix = "nodepool.auth")
public interface AuthSettings {

    /** Bearer token to org id. */
    Map<String, String> tokens();

    /** Tokens that may use the admin APIs (quotas, fleet, reclaim). */
    @WithName("admin-tokens")
    Optional<List<String>> adminTokens();
}
