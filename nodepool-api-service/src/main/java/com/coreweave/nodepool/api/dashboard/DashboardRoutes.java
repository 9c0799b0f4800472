package com.coreweave.nodepool.api.dashboard;

import io.vertx.ext.web.Router;
import jakarta.enterprise.event.Observes;

/**
 * {@code /dashboard} without the slash goes to the page, whose assets are addressed relative to {@code /dashboard/}.
 */
public class DashboardRoutes {

    void route(@Observes Router router) {
        // Vert.x matches "/dashboard/" to this route too; only the exact path is redirected.
        router.getWithRegex("/dashboard").handler(rc -> rc.redirect("/dashboard/"));
    }
}
