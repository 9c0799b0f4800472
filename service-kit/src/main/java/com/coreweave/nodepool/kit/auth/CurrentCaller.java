package com.coreweave.nodepool.kit.auth;

import com.coreweave.nodepool.kit.rest.ApiException;
import jakarta.enterprise.context.RequestScoped;

/** The caller of the request being served, set by {@link BearerTokenFilter}. */
@RequestScoped
public class CurrentCaller {

  private Caller caller;

  void set(Caller authenticated) {
    this.caller = authenticated;
  }

  public Caller get() {
    if (caller == null) {
      throw ApiException.unauthorized("missing or unknown bearer token");
    }
    return caller;
  }

  public String org() {
    return get().org();
  }

  /** The caller, who must be an operator. */
  public Caller admin() {
    Caller c = get();
    if (!c.admin()) {
      throw ApiException.forbidden("this operation needs an admin token");
    }
    return c;
  }
}
