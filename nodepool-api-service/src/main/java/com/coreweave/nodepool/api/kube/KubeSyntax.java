package com.coreweave.nodepool.api.kube;

import java.util.regex.Pattern;

/** Kubernetes name, label and annotation syntax (apimachinery's validation rules). */
public final class KubeSyntax {

    private KubeSyntax() {}

    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern QUALIFIED_NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    /** Null when {@code name} is a valid DNS-1123 subdomain (object names), else why not. */
    public static String dnsSubdomainError(String name) {
        if (name.isEmpty()) {
            return "must not be empty";
        }
        if (name.length() > 253) {
            return "must be no more than 253 characters";
        }
        if (!DNS_SUBDOMAIN.matcher(name).matches()) {
            return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                    + "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
                    + "'" + DNS_SUBDOMAIN.pattern() + "')";
        }
        return null;
    }

    /** Null when {@code key} is a valid label/annotation/taint key ({@code [prefix/]name}), else why not. */
    public static String qualifiedNameError(String key) {
        String name = key;
        int slash = key.indexOf('/');
        if (slash >= 0) {
            String prefix = key.substring(0, slash);
            name = key.substring(slash + 1);
            if (prefix.isEmpty()) {
                return "prefix part must be non-empty";
            }
            String prefixError = dnsSubdomainError(prefix);
            if (prefixError != null) {
                return "prefix part " + prefixError;
            }
        }
        if (name.isEmpty()) {
            return "name part must be non-empty";
        }
        if (name.length() > 63) {
            return "name part must be no more than 63 characters";
        }
        if (!QUALIFIED_NAME.matcher(name).matches()) {
            return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                    + "alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '"
                    + QUALIFIED_NAME.pattern() + "')";
        }
        return null;
    }

    /** Null when {@code value} is a valid label (or taint) value, else why not. */
    public static String labelValueError(String value) {
        if (value.length() > 63) {
            return "must be no more than 63 characters";
        }
        if (!LABEL_VALUE.matcher(value).matches()) {
            return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
                    + "must start and end with an alphanumeric character (regex used for validation is '"
                    + LABEL_VALUE.pattern() + "')";
        }
        return null;
    }
}
