package com.coreweave.nodepool.api.messaging;

import com.coreweave.nodepool.api.messaging.LiveFeed.EventChange;
import com.coreweave.nodepool.api.messaging.LiveFeed.NodeChange;
import com.coreweave.nodepool.api.messaging.LiveFeed.PoolChange;
import com.coreweave.nodepool.api.messaging.LiveFeed.Stream;
import com.coreweave.nodepool.schema.Json;
import com.coreweave.nodepool.schema.events.NodeFact;
import com.coreweave.nodepool.schema.events.PoolKey;
import com.coreweave.nodepool.schema.resource.NodePool;
import io.fabric8.kubernetes.api.model.Event;
import org.jboss.logging.Logger;

/**
 * A change as the {@link LiveFeed} read it: its bytes are parsed only when a watcher is to see it, and once, since most
 * changes are never watched (parsing each one cost the api-service ~5 % of its CPU under load). Only used under the
 * feed's lock.
 */
final class SeenChange {

    private static final Logger LOG = Logger.getLogger(LiveFeed.class);

    final long offset;
    final PoolKey key;
    /** What the change weighs in the history: its record's size, parsed or not. */
    final int bytes;

    private final Stream stream;
    private byte[] value;
    private boolean parsed;
    private Object change;

    SeenChange(long offset, PoolKey key, Stream stream, byte[] value) {
        this.offset = offset;
        this.key = key;
        this.stream = stream;
        this.value = value;
        this.bytes = 64 + (value == null ? 0 : value.length);
    }

    /** The change, or null if its record cannot be read (said once in the log). */
    Object change() {
        if (!parsed) {
            parsed = true;
            try {
                change = switch (stream) {
                    case POOLS -> new PoolChange(key, value == null ? null : Json.read(value, NodePool.class));
                    case EVENTS -> new EventChange(key, Json.read(value, Event.class));
                    // A pool's summary changes no node.
                    case NODES ->
                        Json.read(value, NodeFact.class) instanceof NodeFact.AboutNode about
                                ? new NodeChange(key, about)
                                : null;
                };
            } catch (RuntimeException e) {
                LOG.warnf("unreadable record on %s at offset %d: %s", stream.topic, offset, e.getMessage());
            }
            value = null;
        }
        return change;
    }
}
