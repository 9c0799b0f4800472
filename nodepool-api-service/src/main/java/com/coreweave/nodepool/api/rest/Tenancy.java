package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.kit.auth.Caller;
import com.coreweave.nodepool.kit.auth.CurrentCaller;
import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;

/**
 * Whose objects a call sees: an org's token its own org only; an operator's (admin) token reads every org and writes
 * only in the org its token names, if any, since every object belongs to one org.
 */
@RequestScoped
public class Tenancy {

    @Inject
    CurrentCaller caller;

    /** The org whose objects a read sees, or null for an operator, who sees every org. */
    public String readScope() {
        Caller c = caller.get();
        return c.admin() ? null : c.org();
    }

    /** The org a write acts for; an operator's token without an org may not write. */
    public String writer() {
        Caller c = caller.get();
        if (c.org().isEmpty()) {
            throw ApiException.forbidden(
                    "this operator token belongs to no org, so it reads every org but writes none");
        }
        return c.org();
    }

    public boolean mayRead(String org) {
        String scope = readScope();
        return scope == null || scope.equals(org);
    }

    /** {@code org} when the caller may read it (null = every org, for operators only); else a 404 for tenancy. */
    public String readable(String org) {
        String wanted = org == null || org.isEmpty() ? null : org;
        String scope = readScope();
        if (scope != null && !scope.equals(wanted)) {
            throw ApiException.notFound("NodePool", wanted == null ? "" : wanted);
        }
        return wanted;
    }
}
