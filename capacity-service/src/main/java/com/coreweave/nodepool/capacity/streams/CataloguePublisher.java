package com.coreweave.nodepool.capacity.streams;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import com.coreweave.nodepool.kit.kafka.RecordPublisher;
import com.coreweave.nodepool.schema.events.InstanceType;
import com.coreweave.nodepool.schema.topics.Topics;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import org.jboss.logging.Logger;

/**
 * Publishes the catalogue to the compacted {@code instance-type-catalogued} (keyed by type name) at every start, so the
 * api-service validates pools against the same data the ledgers accept fleets for. Runs after the topics are created;
 * writing the same entries again is harmless on a compacted topic.
 */
@ApplicationScoped
public class CataloguePublisher {

    private static final Logger LOG = Logger.getLogger(CataloguePublisher.class);

    @Inject
    Catalogue catalogue;

    @Inject
    RecordPublisher publisher;

    void onStart(@Observes @Priority(Interceptor.Priority.APPLICATION + 600) StartupEvent event) {
        for (InstanceType type : catalogue.all()) {
            publisher.publish(Topics.INSTANCE_TYPE_CATALOGUED.name(), type.name(), type);
        }
        LOG.infof("published %d instance types to %s", catalogue.all().size(), Topics.INSTANCE_TYPE_CATALOGUED.name());
    }
}
