package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.enterprise.context.RequestScoped;

/**
 * The caller of the request being served, set by {@link BearerTokenFilter}: the one place every read and write asks who
 * is calling, and where a read forwarded to another instance takes the caller's credential from.
 */
@RequestScoped
public class CurrentCaller {

    private Caller caller;
    private String credential;

    void set(Caller authenticated, String authorization) {
        this.caller = authenticated;
        this.credential = authorization;
    }

    public Caller get() {
        if (caller == null) {
            throw ApiException.unauthorized("missing or unknown bearer token");
        }
        return caller;
    }

    public String org() {
        return get().org();
    }

    /** The caller, who must be an operator. */
    public Caller admin() {
        Caller c = get();
        if (!c.admin()) {
            throw ApiException.forbidden("this operation needs an admin token");
        }
        return c;
    }

    /**
     * The {@code Authorization} header the caller sent, for a read this instance forwards to another on the caller's
     * behalf: the other instance checks it again, so tenancy holds there as here.
     */
    public String credential() {
        get();
        return credential;
    }
}
