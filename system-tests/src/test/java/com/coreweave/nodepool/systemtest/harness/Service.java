package com.coreweave.nodepool.systemtest.harness;

/** The five services of the stack, named by their Maven module (which is also where their runnable jar is). */
public enum Service {
    API("nodepool-api-service"),
    QUOTA("quota-service"),
    CAPACITY("capacity-service"),
    PROVISIONER("provisioner-service"),
    PREEMPTION("preemption-service");

    private final String module;

    Service(String module) {
        this.module = module;
    }

    public String module() {
        return module;
    }
}
