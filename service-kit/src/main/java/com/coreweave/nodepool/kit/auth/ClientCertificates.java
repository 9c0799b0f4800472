package com.coreweave.nodepool.kit.auth;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;

/**
 * Callers by their client certificate, as Kubernetes maps them: the subject's CN is the user, its O the org; an O of
 * {@value #OPERATORS} gives the operator role (an operator's certificate may name no other O).
 */
final class ClientCertificates {

    /** The subject O that makes a certificate an operator's. */
    static final String OPERATORS = "nodepool:operators";

    private ClientCertificates() {}

    /** The caller a (TLS-verified) client certificate names; an {@link AuthenticationFailure} if it names none. */
    static Caller callerOf(X509Certificate certificate) {
        try {
            certificate.checkValidity();
        } catch (CertificateException e) {
            throw new AuthenticationFailure("client certificate expired or not yet valid");
        }
        return callerOf(certificate.getSubjectX500Principal());
    }

    /** The CA certificates of a PEM file; a file that cannot be read stops the service at start. */
    static List<X509Certificate> readCas(String location) {
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            List<X509Certificate> cas = new ArrayList<>();
            for (Certificate certificate :
                    CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                cas.add((X509Certificate) certificate);
            }
            if (cas.isEmpty()) {
                throw new IllegalStateException(
                        "nodepool.auth.client-ca-location " + location + " holds no certificate");
            }
            return List.copyOf(cas);
        } catch (IOException | CertificateException e) {
            throw new IllegalStateException(
                    "nodepool.auth.client-ca-location " + location + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** Whether one of {@code cas} signed {@code certificate} (a leaf issued directly by the CA, as the stack's are). */
    static boolean signedByAny(X509Certificate certificate, List<X509Certificate> cas) {
        for (X509Certificate ca : cas) {
            if (!ca.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())) {
                continue;
            }
            try {
                certificate.verify(ca.getPublicKey());
                return true;
            } catch (GeneralSecurityException e) {
                // Another key under the same name: try the next CA.
            }
        }
        return false;
    }

    static Caller callerOf(X500Principal subject) {
        LdapName name;
        try {
            name = new LdapName(subject.getName(X500Principal.RFC2253));
        } catch (InvalidNameException e) {
            throw new AuthenticationFailure("client certificate subject cannot be read");
        }
        List<String> users = new ArrayList<>();
        List<String> orgs = new ArrayList<>();
        Set<String> roles = new LinkedHashSet<>();
        for (Rdn rdn : name.getRdns()) {
            // A multi-valued RDN (CN=a+O=b) holds several attributes; each counts.
            Attributes attributes = rdn.toAttributes();
            try {
                for (Attribute attribute : Collections.list(attributes.getAll())) {
                    for (Object value : Collections.list(attribute.getAll())) {
                        take(attribute.getID(), String.valueOf(value), users, orgs, roles);
                    }
                }
            } catch (NamingException e) {
                throw new AuthenticationFailure("client certificate subject cannot be read");
            }
        }
        if (users.size() != 1 || users.get(0).isBlank()) {
            throw new AuthenticationFailure("client certificate subject must have exactly one CN (the user)");
        }
        if (orgs.size() > 1) {
            throw new AuthenticationFailure("client certificate subject names more than one organization (O)");
        }
        if (orgs.isEmpty() && roles.isEmpty()) {
            throw new AuthenticationFailure("client certificate subject names no organization (O)");
        }
        return new Caller(users.get(0), orgs.isEmpty() ? "" : orgs.get(0), roles);
    }

    private static void take(String type, String value, List<String> users, List<String> orgs, Set<String> roles) {
        if ("CN".equalsIgnoreCase(type)) {
            users.add(value);
        } else if ("O".equalsIgnoreCase(type)) {
            if (OPERATORS.equals(value)) {
                roles.add(Caller.OPERATOR);
            } else {
                orgs.add(value);
            }
        }
    }
}
