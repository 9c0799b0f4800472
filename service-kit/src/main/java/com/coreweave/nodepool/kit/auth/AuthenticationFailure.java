package com.coreweave.nodepool.kit.auth;

/** A credential that proves nobody: answered 401 with the message, which says what was wrong with it. */
public final class AuthenticationFailure extends RuntimeException {

    public AuthenticationFailure(String message) {
        super(message, null, false, false);
    }
}
