package io.roboco.sandbox.junit;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One leased sandbox, kept in the JUnit context it lives for (the class's or the method's) and released when that
 * context closes. Releasing twice is a no-op.
 */
@SuppressWarnings("deprecation") // CloseableResource for JUnit before 5.13; AutoCloseable for after
final class Lease implements AutoCloseable, ExtensionContext.Store.CloseableResource {
    private final String id;
    private final Map<String, Map<String, String>> envByService;
    private final LeaseSource source;
    private final AtomicBoolean released = new AtomicBoolean();

    Lease(String id, Map<String, Map<String, String>> envByService, LeaseSource source) {
        this.id = id;
        this.envByService = Map.copyOf(envByService);
        this.source = source;
    }

    String id() {
        return id;
    }

    /** The sandbox type's value, from the service's env; fails naming what the lease holds when it lacks it. */
    ServiceSandbox of(Class<?> type) {
        String service = Services.of(type);
        Map<String, String> env = envByService.get(service);
        if (env == null) {
            throw new IllegalStateException(
                    "sandbox " + id + " has no " + service + " (it has " + envByService.keySet() + ")");
        }
        return switch (service) {
            case "postgres" -> new PostgresSandbox(id, env);
            case "redis" -> new RedisSandbox(id, env);
            default -> new MongoSandbox(id, env);
        };
    }

    @Override
    public void close() throws Exception {
        if (released.compareAndSet(false, true)) {
            source.release(this);
        }
    }

    @Override
    public String toString() {
        return "Lease[" + id + ", " + envByService.keySet() + "]";
    }
}
