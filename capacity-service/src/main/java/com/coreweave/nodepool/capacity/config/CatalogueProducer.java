package com.coreweave.nodepool.capacity.config;

import com.coreweave.nodepool.capacity.domain.Catalogue;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The instance-type catalogue, read once from the data file the settings name. */
public class CatalogueProducer {

    @Produces
    @Singleton
    Catalogue catalogue(CapacitySettings settings) {
        return Catalogue.fromResource(settings.catalogue());
    }
}
