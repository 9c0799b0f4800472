package com.coreweave.nodepool.systemtest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The api-service setting that makes a test's own bearer token stand for a user of an org: the configuration holds only
 * the token's SHA-256 ({@code nodepool.auth.static-tokens.<sha256 hex>=<user>,<org>}, docs/security.md).
 */
public final class StaticTokenProperty {

    private StaticTokenProperty() {}

    /** The property name for {@code token}. */
    public static String name(String token) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return "nodepool.auth.static-tokens." + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The property value for a user named after its {@code org}. */
    public static String value(String org) {
        return org + "," + org;
    }
}
