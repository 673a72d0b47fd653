package io.roboco.sandbox.mcp;

import io.roboco.sandbox.inspect.InspectionPolicy;
import io.roboco.sandbox.inspect.PostgresInspector;
import io.roboco.sandbox.inspect.PostgresTarget;
import io.roboco.sandbox.provision.ServiceInstance;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One {@link PostgresInspector} per live Postgres sandbox container (each holds one proven read-only connection
 * with the agent's own credential). An inspector whose container is no longer live is closed on the next use
 * of any; a new container (a replaced sandbox) gets a new inspector; so does a changed policy.
 */
final class Inspectors implements AutoCloseable {
    private record Held(PostgresInspector inspector, InspectionPolicy policy) {
    }

    private final Map<String, Held> byContainer = new HashMap<>();
    private final Supplier<Set<String>> liveContainers;

    Inspectors(Supplier<Set<String>> liveContainers) {
        this.liveContainers = liveContainers;
    }

    synchronized PostgresInspector of(ServiceInstance postgres, InspectionPolicy policy) {
        Set<String> live = liveContainers.get();
        for (Iterator<Map.Entry<String, Held>> it = byContainer.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Held> e = it.next();
            if (!live.contains(e.getKey())) {
                e.getValue().inspector().close();
                it.remove();
            }
        }
        Held held = byContainer.get(postgres.containerId());
        if (held == null || !held.policy().equals(policy)) {
            if (held != null) {
                held.inspector().close();
            }
            held = new Held(PostgresInspector.of(PostgresTarget.ofAgent(postgres.endpoint(), postgres.credentials()), policy), policy);
            byContainer.put(postgres.containerId(), held);
        }
        return held.inspector();
    }

    synchronized int size() {
        return byContainer.size();
    }

    @Override
    public synchronized void close() {
        byContainer.values().forEach(h -> h.inspector().close());
        byContainer.clear();
    }
}
