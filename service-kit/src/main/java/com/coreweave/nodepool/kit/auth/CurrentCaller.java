package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;

/**
 * The caller of the request being served, set by {@link BearerTokenFilter}: the one place every read and write asks who
 * is calling, and where a read forwarded to another instance takes its peer assertion from.
 */
@RequestScoped
public class CurrentCaller {

    /** The header a read forwarded to another instance carries its {@link #peerAssertion()} in. */
    public static final String PEER_ASSERTION_HEADER = "X-Nodepool-Peer-Assertion";

    @Inject
    TokenRealm realm;

    private Caller caller;

    void set(Caller authenticated) {
        this.caller = authenticated;
    }

    public Caller get() {
        if (caller == null) {
            throw ApiException.unauthorized("missing or unknown credentials");
        }
        return caller;
    }

    public String org() {
        return get().org();
    }

    /** The caller, who must be an operator. */
    public Caller admin() {
        Caller c = get();
        if (!c.operator()) {
            throw ApiException.forbidden("this operation needs the operator role");
        }
        return c;
    }

    /**
     * A key standing for the caller, whatever credential it came with: what rate and watch limits count by. The same
     * user of the same org is one key, whether by token, certificate or through another instance.
     */
    public String credential() {
        Caller c = get();
        return c.user() + '\n' + c.org();
    }

    /**
     * A short-lived assertion, signed by this instance, that this caller is calling {@code target}: what a read
     * forwarded to another instance carries instead of the caller's own credential ({@code X-Nodepool-Peer-Assertion}).
     */
    public String peerAssertion(PeerTarget target) {
        return realm.peerAssertion(get(), target);
    }
}
