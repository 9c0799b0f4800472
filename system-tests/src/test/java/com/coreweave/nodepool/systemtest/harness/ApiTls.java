package com.coreweave.nodepool.systemtest.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The test stack's local PKI, made by the JDK's keytool as {@code ./stack up} makes its own with openssl: a CA, the
 * API's HTTPS certificate for localhost and 127.0.0.1 signed by it, and client certificates of that CA
 * ({@link #client}), made on first use, that identify an org to the API's HTTPS (which requests, not requires, one).
 * kubectl sends a bearer token only over TLS, so a test that drives kubectl needs the API on HTTPS too.
 */
public final class ApiTls {

    private static final String PASSWORD = "nodepool-test";
    private static final String VALIDITY_DAYS = "30";

    private final Path dir;
    private final Path caKeyStore;
    private final Path caCertificate;
    private final Path keyStore;
    private final Path certificate;
    private final Map<String, ClientIdentity> clients = new ConcurrentHashMap<>();

    private ApiTls(Path dir) {
        this.dir = dir;
        caKeyStore = dir.resolve("ca.p12");
        caCertificate = dir.resolve("ca.crt");
        keyStore = dir.resolve("api.p12");
        certificate = dir.resolve("api.crt");
    }

    /** A client certificate and its private key, both PEM, for a kubeconfig's client-certificate and client-key. */
    public record ClientIdentity(String commonName, String organization, Path certificate, Path key) {

        public String certificatePem() {
            return read(certificate);
        }

        public String keyPem() {
            return read(key);
        }
    }

    /**
     * Makes the CA, the API's key store and the PEM certificates in {@code dir}; the independent keytool runs run at
     * once.
     */
    public static ApiTls create(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ApiTls tls = new ApiTls(dir);
        run(List.of(
                genkeypair(
                        tls.caKeyStore,
                        "ca",
                        "CN=nodepool test CA,O=nodepool",
                        "BC:c=ca:true",
                        "KU:c=keyCertSign,cRLSign"),
                genkeypair(tls.keyStore, "api", "CN=localhost")));
        run(List.of(
                keytool(
                        "-exportcert",
                        "-rfc",
                        "-alias",
                        "ca",
                        "-keystore",
                        tls.caKeyStore.toString(),
                        "-storepass",
                        PASSWORD,
                        "-file",
                        tls.caCertificate.toString()),
                tls.certreq("api")));
        tls.sign("api", List.of("SAN=dns:localhost,ip:127.0.0.1", "EKU=serverAuth"));
        return tls;
    }

    /** The API's key store (PKCS12: its key, its certificate and the CA's). */
    public Path keyStore() {
        return keyStore;
    }

    /** The key stores' password. */
    public String password() {
        return PASSWORD;
    }

    /** The API's certificate (PEM). */
    public Path certificate() {
        return certificate;
    }

    /** The CA's certificate (PEM): it signed the API's and the clients'; the API trusts client certificates of it. */
    public Path caCertificate() {
        return caCertificate;
    }

    /**
     * The system properties that make a Quarkus service listen on HTTPS at {@code port} too, asking clients for a
     * certificate of the CA ({@code ./stack up} gives the api-service the same).
     */
    List<String> properties(int port) {
        return List.of(
                "-Dquarkus.http.ssl-port=" + port,
                "-Dquarkus.tls.key-store.p12.path=" + keyStore,
                "-Dquarkus.tls.key-store.p12.password=" + PASSWORD,
                "-Dquarkus.http.ssl.client-auth=request",
                "-Dquarkus.tls.trust-store.pem.certs=" + caCertificate,
                "-Dnodepool.auth.client-ca-location=" + caCertificate);
    }

    /**
     * The CA's certificate in PEM, as a kubeconfig's {@code certificate-authority-data} carries it (base64): it signed
     * the API's.
     */
    public String pem() {
        return read(caCertificate);
    }

    /** The API's own certificate in PEM. */
    public String serverPem() {
        return read(certificate);
    }

    /**
     * The broker's key store ({@code kafka-broker.p12}, PKCS12, {@link #password()}): a certificate of the CA for
     * localhost with CN {@code kafka-broker}, for TLS on its listeners and for mutual TLS between its own parts.
     */
    public synchronized Path brokerKeyStore() {
        Path store = dir.resolve("kafka-broker.p12");
        if (!Files.exists(dir.resolve("kafka-broker.crt"))) {
            issue(
                    "kafka-broker",
                    "CN=kafka-broker",
                    List.of("SAN=dns:localhost,ip:127.0.0.1", "EKU=serverAuth,clientAuth"));
        }
        return store;
    }

    /** The client certificate of org {@code organization} (CN {@code <org>-user}), issued on first use. */
    public ClientIdentity client(String organization) {
        return client(organization, organization + "-user", organization);
    }

    /**
     * The client certificate {@code name} (CN {@code commonName}, O {@code organization}) signed by the CA, issued on
     * first use; its certificate and PKCS#8 key are PEM files {@code <name>.crt} and {@code <name>.key}.
     */
    public ClientIdentity client(String name, String commonName, String organization) {
        if (!name.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("a client certificate's name is a file name, not '" + name + "'");
        }
        return clients.computeIfAbsent(name, n -> {
            issue(n, "CN=" + escape(commonName) + ",O=" + escape(organization), List.of("EKU=clientAuth"));
            Path key = dir.resolve(n + ".key");
            writePrivateKey(dir.resolve(n + ".p12"), n, key);
            return new ClientIdentity(commonName, organization, dir.resolve(n + ".crt"), key);
        });
    }

    /** A key pair (EC P-256) and its self-signed certificate for {@code dname} in {@code store} under {@code alias}. */
    private static List<String> genkeypair(Path store, String alias, String dname, String... extensions) {
        List<String> command = keytool(
                "-genkeypair",
                "-noprompt",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-validity",
                VALIDITY_DAYS,
                "-dname",
                dname,
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                PASSWORD);
        for (String extension : extensions) {
            command.add("-ext");
            command.add(extension);
        }
        return command;
    }

    /** The certificate request {@code <name>.csr} of the key pair in {@code <name>.p12}. */
    private List<String> certreq(String name) {
        return keytool(
                "-certreq",
                "-alias",
                name,
                "-keystore",
                dir.resolve(name + ".p12").toString(),
                "-storepass",
                PASSWORD,
                "-file",
                dir.resolve(name + ".csr").toString());
    }

    /** A key pair in {@code <name>.p12}, signed by the CA ({@link #sign}). */
    private void issue(String name, String dname, List<String> extensions) {
        run(List.of(genkeypair(dir.resolve(name + ".p12"), name, dname)));
        run(List.of(certreq(name)));
        sign(name, extensions);
    }

    /**
     * The certificate of request {@code <name>.csr} signed by the CA with the extensions {@code extensions} in
     * {@code <name>.crt} (PEM), and the chain (it, the CA) put into the key store {@code <name>.p12}.
     */
    private void sign(String name, List<String> extensions) {
        Path storeFile = dir.resolve(name + ".p12");
        Path request = dir.resolve(name + ".csr");
        Path issued = dir.resolve(name + ".crt");
        List<String> gencert = keytool(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                caKeyStore.toString(),
                "-storepass",
                PASSWORD,
                "-infile",
                request.toString(),
                "-outfile",
                issued.toString(),
                "-validity",
                VALIDITY_DAYS,
                "-ext",
                "BC:c=ca:false",
                "-ext",
                "KU:c=digitalSignature");
        for (String extension : extensions) {
            gencert.add("-ext");
            gencert.add(extension);
        }
        run(List.of(gencert));
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            KeyStore store = load(storeFile);
            Key key = store.getKey(name, PASSWORD.toCharArray());
            Certificate[] chain = {certificate(factory, issued), certificate(factory, caCertificate)};
            store.setKeyEntry(name, key, PASSWORD.toCharArray(), chain);
            try (var out = Files.newOutputStream(storeFile)) {
                store.store(out, PASSWORD.toCharArray());
            }
            Files.deleteIfExists(request);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot put the chain of " + name + " into " + storeFile, e);
        }
    }

    /** The private key of {@code alias} in {@code keyStore}, as an unencrypted PKCS#8 PEM file (what kubectl reads). */
    private static void writePrivateKey(Path keyStore, String alias, Path file) {
        try {
            PrivateKey key = (PrivateKey) load(keyStore).getKey(alias, PASSWORD.toCharArray());
            Files.writeString(file, Pem.encode("PRIVATE KEY", key.getEncoded()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the key of " + alias + " from " + keyStore, e);
        }
    }

    private static KeyStore load(Path keyStore) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static Certificate certificate(CertificateFactory factory, Path pem)
            throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return factory.generateCertificate(in);
        }
    }

    /** An RDN value for keytool's -dname: its special characters escaped. */
    private static String escape(String value) {
        return value.replaceAll("([,+=\"\\\\<>;])", "\\\\$1");
    }

    /** A keytool command line; its JVM starts quickly (C1 only, serial GC): it runs for a moment. */
    private static List<String> keytool(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1",
                "-J-XX:+UseSerialGC"));
        command.addAll(List.of(args));
        return command;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the keytool commands at once and waits for all of them. */
    private static void run(List<List<String>> commands) {
        try {
            List<Process> processes = new ArrayList<>();
            for (List<String> command : commands) {
                processes.add(
                        new ProcessBuilder(command).redirectErrorStream(true).start());
            }
            for (Process process : processes) {
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (process.waitFor() != 0) {
                    throw new IllegalStateException("keytool failed: " + output);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** PEM armour. */
    static final class Pem {

        private Pem() {}

        static String encode(String type, byte[] der) {
            return "-----BEGIN " + type + "-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(der)
                    + "\n-----END " + type + "-----\n";
        }
    }
}
