package com.coreweave.nodepool.kit.auth;

/** The authenticated caller of a request: the org it acts for, and whether it is an operator. */
public record Caller(String org, boolean admin) {}
