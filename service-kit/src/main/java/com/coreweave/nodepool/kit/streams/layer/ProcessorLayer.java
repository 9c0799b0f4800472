package com.coreweave.nodepool.kit.streams.layer;

import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.ProcessorWrapper;
import org.apache.kafka.streams.processor.api.WrappedFixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.WrappedProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A supplier whose every processor is wrapped by one layer of {@code ProcessorLayers}, keeping the supplier's stores:
 * what each layer's {@link ProcessorWrapper} methods would otherwise each write out.
 */
public final class ProcessorLayer {

    private ProcessorLayer() {}

    public static <KIn, VIn, KOut, VOut> WrappedProcessorSupplier<KIn, VIn, KOut, VOut> around(
            ProcessorSupplier<KIn, VIn, KOut, VOut> supplier, UnaryOperator<Processor<KIn, VIn, KOut, VOut>> layer) {
        return ProcessorWrapper.asWrapped(new ProcessorSupplier<>() {
            @Override
            public Processor<KIn, VIn, KOut, VOut> get() {
                return layer.apply(supplier.get());
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        });
    }

    public static <KIn, VIn, VOut> WrappedFixedKeyProcessorSupplier<KIn, VIn, VOut> aroundFixedKey(
            FixedKeyProcessorSupplier<KIn, VIn, VOut> supplier,
            UnaryOperator<FixedKeyProcessor<KIn, VIn, VOut>> layer) {
        return ProcessorWrapper.asWrappedFixedKey(new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<KIn, VIn, VOut> get() {
                return layer.apply(supplier.get());
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return supplier.stores();
            }
        });
    }
}
