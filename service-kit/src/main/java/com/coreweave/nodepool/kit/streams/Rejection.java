package com.coreweave.nodepool.kit.streams;

/**
 * Why a record cannot be used: a stable {@code code} (the {@code dlq.error} header) and a reason for people
 * (the {@code dlq.reason} header).
 */
public class Rejection extends RuntimeException {

  private final String code;

  public Rejection(String code, String reason) {
    super(reason);
    this.code = code;
  }

  public String code() {
    return code;
  }

  public String reason() {
    return getMessage();
  }
}
