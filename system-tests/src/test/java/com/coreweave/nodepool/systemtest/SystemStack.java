package com.coreweave.nodepool.systemtest;

import com.coreweave.nodepool.systemtest.harness.Service;
import com.coreweave.nodepool.systemtest.harness.Stack;

/**
 * The whole system for the system tests: a real broker and the five services as separate processes, started once
 * per test JVM and shared by the test classes (each works on its own instance types, zones or orgs). Minutes of the
 * real timelines run in seconds here; everything else is configured as in production.
 */
final class SystemStack {

  private static Stack stack;

  private SystemStack() {
  }

  static synchronized Stack get() {
    if (stack == null) {
      stack = Stack.builder()
          .withServices(Service.values())
          .withApiTls()
          .withProperty(Service.PROVISIONER, "provisioner.boot-time", "2s")
          .withProperty(Service.PROVISIONER, "provisioner.boot-failure-rate", "0")
          .withProperty(Service.PROVISIONER, "provisioner.timer-interval", "200ms")
          .withProperty(Service.PROVISIONER, "provisioner.drain-grace", "3s")
          .withProperty(Service.PROVISIONER, "provisioner.autoscaler.scale-up-after", "2s")
          .withProperty(Service.PROVISIONER, "provisioner.autoscaler.scale-down-unneeded-time", "5s")
          .withProperty(Service.PROVISIONER, "provisioner.health.prepare-for-terminate", "1s")
          .withProperty(Service.PROVISIONER, "provisioner.retry-interval", "1s")
          .withProperty(Service.PREEMPTION, "preemption.warning-period", "3s")
          .withProperty(Service.PREEMPTION, "preemption.removal-deadline", "12s")
          .withProperty(Service.PREEMPTION, "preemption.default-grace", "2s")
          .withProperty(Service.PREEMPTION, "preemption.tick", "200ms")
          .build()
          .start();
    }
    return stack;
  }

  static Api api(String token) {
    return new Api(get().url(Service.API), token);
  }

  static Api admin(Service service) {
    return new Api(get().url(service), "admin-token");
  }

  /** Sets an org's quota for one zone and type, through the admin API. */
  static void quota(String org, String zone, String type, int maxNodes) {
    var answer = admin(Service.QUOTA).put("/admin/quotas/" + org + "/" + zone + "/" + type,
        "{\"maxNodes\": " + maxNodes + "}");
    if (answer.code() != 200) {
      throw new AssertionError("setting a quota answered " + answer.code() + ": " + answer.body());
    }
  }

  /** Sets how many machines of a type a zone has in service, through the admin API. */
  static void fleet(String zone, String type, int machines) {
    var answer = admin(Service.CAPACITY).put("/admin/fleet/" + zone + "/" + type,
        "{\"machines\": " + machines + "}");
    if (answer.code() != 200 && answer.code() != 202) {
      throw new AssertionError("setting the fleet answered " + answer.code() + ": " + answer.body());
    }
  }
}
