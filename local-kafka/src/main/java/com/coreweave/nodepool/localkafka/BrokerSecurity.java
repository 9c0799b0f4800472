package com.coreweave.nodepool.localkafka;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The listeners of a secured single-node broker: clients authenticate with SCRAM-SHA-512 over TLS on {@code CLIENTS};
 * the broker talks to itself and to its controller over mutual TLS with its own certificate ({@code BROKER},
 * {@code CONTROLLER}), which is also how {@link AccessSetup} connects as a super user; Kafka's
 * {@code StandardAuthorizer} allows only what an ACL grants ({@link KafkaAccess}).
 *
 * @param keyStore the broker's PKCS12 key store: a certificate of the local CA for {@code localhost}, CN
 *     {@value KafkaAccess#BROKER}, good for server and client authentication
 * @param caCertificate the CA (PEM) every certificate the broker accepts or presents is signed by
 */
record BrokerSecurity(Path keyStore, String keyStorePassword, Path caCertificate) {

    static final String CLIENTS = "CLIENTS";
    static final String BROKER_LISTENER = "BROKER";
    static final String CONTROLLER = "CONTROLLER";
    static final String MECHANISM = "SCRAM-SHA-512";

    /**
     * The broker's settings for listeners on {@code port} (clients), {@code internalPort} and {@code controllerPort}.
     */
    Map<String, String> brokerSettings(int port, int internalPort, int controllerPort) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(
                "listeners",
                CLIENTS + "://localhost:" + port + "," + BROKER_LISTENER + "://localhost:" + internalPort + ","
                        + CONTROLLER + "://localhost:" + controllerPort);
        settings.put(
                "advertised.listeners",
                CLIENTS + "://localhost:" + port + "," + BROKER_LISTENER + "://localhost:" + internalPort);
        settings.put(
                "listener.security.protocol.map",
                CLIENTS + ":SASL_SSL," + BROKER_LISTENER + ":SSL," + CONTROLLER + ":SSL");
        settings.put("inter.broker.listener.name", BROKER_LISTENER);
        settings.put("controller.listener.names", CONTROLLER);
        settings.put("sasl.enabled.mechanisms", MECHANISM);
        settings.put(
                "listener.name.clients.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        settings.putAll(stores());
        // Only the broker's own certificate opens the internal listeners; clients there are the broker itself.
        settings.put("listener.name.broker.ssl.client.auth", "required");
        settings.put("listener.name.controller.ssl.client.auth", "required");
        // A certificate's principal is its CN (the default would be the whole subject), so super.users stays short.
        settings.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]+).*$/$1/,DEFAULT");
        settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.put("allow.everyone.if.no.acl.found", "false");
        settings.put("super.users", "User:" + KafkaAccess.BROKER + ";User:" + KafkaAccess.ADMIN);
        return settings;
    }

    /** A client of the internal listener as the broker itself (a super user), for {@link AccessSetup}. */
    Map<String, Object> brokerClient(int internalPort) {
        Map<String, Object> client = new LinkedHashMap<>();
        client.put("bootstrap.servers", "localhost:" + internalPort);
        client.put("security.protocol", "SSL");
        client.putAll(stores());
        return client;
    }

    /** The broker's key store and the CA it trusts: the same on its listeners and in its own client. */
    private Map<String, String> stores() {
        Map<String, String> stores = new LinkedHashMap<>();
        stores.put("ssl.keystore.type", "PKCS12");
        stores.put("ssl.keystore.location", keyStore.toString());
        stores.put("ssl.keystore.password", keyStorePassword);
        stores.put("ssl.key.password", keyStorePassword);
        stores.put("ssl.truststore.type", "PEM");
        stores.put("ssl.truststore.location", caCertificate.toString());
        return stores;
    }
}
