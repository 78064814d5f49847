package dev.quotaenforcer.topology;

import java.util.function.UnaryOperator;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/** Supplies the stores another supplier supplies, each inside a wrapper of ours, under the same name and metrics scope. */
final class WrappingSupplier implements KeyValueBytesStoreSupplier {

    private final KeyValueBytesStoreSupplier stored;
    private final UnaryOperator<KeyValueStore<Bytes, byte[]>> wrap;

    WrappingSupplier(KeyValueBytesStoreSupplier stored, UnaryOperator<KeyValueStore<Bytes, byte[]>> wrap) {
        this.stored = stored;
        this.wrap = wrap;
    }

    @Override
    public String name() {
        return stored.name();
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return wrap.apply(stored.get());
    }

    @Override
    public String metricsScope() {
        return stored.metricsScope();
    }
}
