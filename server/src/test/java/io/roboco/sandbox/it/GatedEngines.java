package io.roboco.sandbox.it;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.ProbeTarget;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntPredicate;

/**
 * The real engines, each behind a proxy that forwards every call unchanged, except that a test can
 * {@linkplain #parkNextLivenessCheck park} the next liveness check of a sandbox (the re-verification a
 * cache hit makes, inside the agent's lock) at a {@link Gate}. A proxy, not a subclass: whatever the
 * {@link Engine} interface gains, the real engine answers it.
 */
public final class GatedEngines {
    private record Armed(IntPredicate port, Gate gate) {}

    private final List<Armed> livenessGates = new CopyOnWriteArrayList<>();

    /** The engines of {@code real}, gated. */
    public EngineRegistry wrap(EngineRegistry real) {
        return EngineRegistry.of(real.all().stream().map(this::gated).toList());
    }

    /** The next liveness check of a sandbox whose service port matches parks until the returned gate opens. */
    public Gate parkNextLivenessCheck(String what, IntPredicate port) {
        Gate gate = new Gate(what);
        livenessGates.add(new Armed(port, gate));
        return gate;
    }

    private Engine gated(Engine real) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = forward(real, method, args);
            if (method.getName().equals("openLiveSession") && result instanceof LiveSession session) {
                return new GatedSession(
                        session, ((ProbeTarget) args[0]).endpoint().port());
            }
            return result;
        };
        return (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {Engine.class}, handler);
    }

    private static Object forward(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private void parkIfArmed(int port) {
        for (Armed a : livenessGates) {
            if (a.port().test(port) && livenessGates.remove(a)) {
                a.gate().park();
                return;
            }
        }
    }

    /** A live session whose checks may park first. */
    private final class GatedSession implements LiveSession {
        private final LiveSession real;
        private final int port;

        GatedSession(LiveSession real, int port) {
            this.real = real;
            this.port = port;
        }

        @Override
        public void check() throws Exception {
            parkIfArmed(port);
            real.check();
        }

        @Override
        public boolean provesRunning() {
            return real.provesRunning();
        }

        @Override
        public void close() {
            real.close();
        }
    }
}
