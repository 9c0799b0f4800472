package com.coreweave.nodepool.kit.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Static bearer tokens, known only by their SHA-256: the presented token's hash finds its entry, and is compared with
 * the stored one in constant time.
 */
final class StaticTokens {

    private record Entry(byte[] hash, Caller caller) {}

    private final Map<String, Entry> byHash;

    /** From {@code <sha256 hex>} to {@code <user>,<org>[,<role>...]}; a malformed entry fails with its key named. */
    StaticTokens(Map<String, String> configured) {
        Map<String, Entry> entries = new HashMap<>();
        configured.forEach((key, value) -> {
            String hex = unquote(key).toLowerCase(Locale.ROOT);
            if (!hex.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("nodepool.auth.static-tokens." + key
                        + ": the key must be the SHA-256 of a token, 64 hex digits");
            }
            entries.put(hex, new Entry(HexFormat.of().parseHex(hex), callerOf(key, value)));
        });
        this.byHash = Map.copyOf(entries);
    }

    /** The caller {@code token} stands for, or empty for a token nobody configured. */
    Optional<Caller> callerOf(String token) {
        byte[] presented = sha256(token);
        Entry entry = byHash.get(HexFormat.of().formatHex(presented));
        if (entry == null || !MessageDigest.isEqual(entry.hash(), presented)) {
            return Optional.empty();
        }
        return Optional.of(entry.caller());
    }

    int size() {
        return byHash.size();
    }

    /** The lower-case hex SHA-256 of {@code token}'s UTF-8 bytes: the key a static token is configured under. */
    static String sha256Hex(String token) {
        return HexFormat.of().formatHex(sha256(token));
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Caller callerOf(String key, String value) {
        String[] parts = Arrays.stream(value.split(",", -1)).map(String::trim).toArray(String[]::new);
        if (parts.length < 2 || parts[0].isEmpty()) {
            throw new IllegalArgumentException("nodepool.auth.static-tokens." + key
                    + ": the value must be <user>,<org>[,<role>...] (an operator's org may be empty)");
        }
        Set<String> roles = new LinkedHashSet<>();
        for (int i = 2; i < parts.length; i++) {
            if (!parts[i].isEmpty()) {
                roles.add(parts[i]);
            }
        }
        if (parts[1].isEmpty() && !roles.contains(Caller.OPERATOR)) {
            throw new IllegalArgumentException(
                    "nodepool.auth.static-tokens." + key + ": only an operator's token may name no org");
        }
        return new Caller(parts[0], parts[1], roles);
    }

    private static String unquote(String key) {
        return key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")
                ? key.substring(1, key.length() - 1)
                : key;
    }
}
