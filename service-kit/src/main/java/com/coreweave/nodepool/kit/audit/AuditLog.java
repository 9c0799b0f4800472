package com.coreweave.nodepool.kit.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jboss.logging.Logger;

/**
 * Writes audit events, one JSON line each, to the log category {@value #CATEGORY} at INFO. Its own file handler (see
 * service-kit's microprofile-config.properties) writes that category alone, message only, to
 * {@code ${nodepool.audit.file}}.
 */
public final class AuditLog {

    public static final String CATEGORY = "nodepool.audit";

    private static final Logger LOG = Logger.getLogger(CATEGORY);
    private static final Logger SELF = Logger.getLogger(AuditLog.class);
    /** Its own mapper, so that no service's Jackson settings change the audit format. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private AuditLog() {}

    /** The event as one line of JSON. */
    public static String line(AuditEvent event) throws JsonProcessingException {
        return JSON.writeValueAsString(event);
    }

    /** Whether events are written at all: a caller can skip building one when not. */
    public static boolean enabled() {
        return LOG.isInfoEnabled();
    }

    /**
     * Records the event and returns its line, for the topic; a failure to is logged and never fails the request it
     * records (null then).
     */
    public static String write(AuditEvent event) {
        try {
            String line = line(event);
            if (LOG.isInfoEnabled()) {
                LOG.info(line);
            }
            return line;
        } catch (JsonProcessingException | RuntimeException e) {
            SELF.errorf(e, "cannot write the audit event %s of %s", event.auditID(), event.requestURI());
            return null;
        }
    }
}
