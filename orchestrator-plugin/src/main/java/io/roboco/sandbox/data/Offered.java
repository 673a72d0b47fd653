package io.roboco.sandbox.data;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.provision.ServiceInstance;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The service of a sandbox whose engine offers a data feature ({@link Engine#schemaSnapshots}, {@link Engine#checkpoints},
 * {@link Engine#dumps}), and that feature: the core asks the engines which of the sandbox's services offers it and names
 * none itself. The first offering engine in the registry's order is the one asked.
 */
record Offered<T>(ServiceInstance instance, T feature) {

    /** The sandbox's service whose engine offers {@code capability}; empty when none of {@code services} does. */
    static <T> Optional<Offered<T>> in(
            EngineRegistry registry, Map<String, ServiceInstance> services, Function<Engine, Optional<T>> capability) {
        for (Engine engine : registry.offering(capability)) {
            ServiceInstance instance = services.get(engine.name());
            if (instance != null) {
                return Optional.of(
                        new Offered<>(instance, capability.apply(engine).orElseThrow()));
            }
        }
        return Optional.empty();
    }

    /** The engines offering {@code capability} as a sentence names them: {@code Postgres}, {@code Postgres or Redis}. */
    static String engines(EngineRegistry registry, Function<Engine, ? extends Optional<?>> capability) {
        List<String> names = registry.offering(capability).stream()
                .map(e -> e.name().substring(0, 1).toUpperCase(Locale.ROOT)
                        + e.name().substring(1))
                .toList();
        return names.isEmpty() ? "no engine" : String.join(" or ", names);
    }

    ProbeTarget target() {
        return ProbeTarget.of(instance.endpoint(), instance.credentials());
    }

    /** {@code message} without the service's passwords (the agent's and the admin's). */
    String redact(String message) {
        return redact(message, instance);
    }

    static String redact(String message, ServiceInstance instance) {
        String out = String.valueOf(message);
        for (String secret : new String[] {
            instance.credentials().password(), instance.credentials().adminPassword()
        }) {
            if (secret != null && !secret.isEmpty()) {
                out = out.replace(secret, "<redacted>");
            }
        }
        return out;
    }
}
