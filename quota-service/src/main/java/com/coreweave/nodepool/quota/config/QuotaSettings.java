package com.coreweave.nodepool.quota.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;

/** The quota-service's own settings. */
@ConfigMapping(prefix = "nodepool.quota")
public interface QuotaSettings {

  /** The host name other instances reach this one at, for interactive queries. */
  @WithName("advertised-host")
  @WithDefault("localhost")
  String advertisedHost();

  /** How long a read forwarded to the instance that holds a quota may wait for a connection. */
  @WithName("forward-connect-timeout")
  @WithDefault("2s")
  Duration forwardConnectTimeout();

  /** How long a read forwarded to the instance that holds a quota may take before the call answers 503. */
  @WithName("forward-timeout")
  @WithDefault("5s")
  Duration forwardTimeout();
}
