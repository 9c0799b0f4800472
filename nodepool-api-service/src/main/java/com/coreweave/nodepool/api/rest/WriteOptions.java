package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.ManifestValidator.FieldValidation;
import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * The query of a Kubernetes write: {@code dryRun}, {@code fieldManager}, {@code fieldValidation} and, for an apply,
 * {@code force}; and how the answer carries the warnings of {@code fieldValidation=Warn}.
 */
public class WriteOptions {

    @QueryParam("dryRun")
    String dryRun;

    @QueryParam("fieldManager")
    String fieldManager;

    @QueryParam("fieldValidation")
    String fieldValidation;

    @QueryParam("force")
    boolean force;

    @HeaderParam(HttpHeaders.USER_AGENT)
    String userAgent;

    /** Whether the write is only decided, never stored ({@code dryRun=All}, as kubectl's --dry-run=server). */
    boolean dryRun() {
        if (dryRun == null || dryRun.isEmpty()) {
            return false;
        }
        if (!dryRun.equals("All")) {
            throw ApiException.badRequest("dryRun must be All, not \"" + dryRun + "\"");
        }
        return true;
    }

    FieldValidation fieldValidation() {
        try {
            return FieldValidation.of(fieldValidation);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    /** The field manager: as named, else the client's program from its User-Agent, as the API server does. */
    String manager() {
        if (fieldManager != null && !fieldManager.isBlank()) {
            if (fieldManager.length() > 128) {
                throw ApiException.badRequest("fieldManager must be at most 128 characters");
            }
            return fieldManager;
        }
        if (userAgent == null || userAgent.isBlank()) {
            return "unknown";
        }
        String program = userAgent.split("[/ ]", 2)[0];
        return program.isEmpty() ? "unknown" : program;
    }

    /** The manager an apply names; Kubernetes requires one. */
    String applyManager() {
        if (fieldManager == null || fieldManager.isBlank()) {
            throw ApiException.badRequest("fieldManager is required for apply requests");
        }
        return manager();
    }

    Response respond(int code, Object entity, List<String> warnings) {
        Response.ResponseBuilder response = Response.status(code).entity(entity);
        warnings.forEach(w -> response.header("Warning", "299 - \"" + w.replace("\"", "\\\"") + "\""));
        return response.build();
    }
}
