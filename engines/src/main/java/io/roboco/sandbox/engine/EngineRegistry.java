package io.roboco.sandbox.engine;

import io.roboco.sandbox.engine.mongo.MongoEngine;
import io.roboco.sandbox.engine.postgres.PostgresEngine;
import io.roboco.sandbox.engine.redis.RedisEngine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The engines a deployment knows, built explicitly in one place. Duplicates are refused; unknown
 * names fail with a message that lists the known ones.
 */
public final class EngineRegistry {
    private final Map<String, Engine> engines;

    private EngineRegistry(Map<String, Engine> engines) {
        this.engines = Collections.unmodifiableMap(engines);
    }

    /**
     * The engines this product ships: the one place they are listed. A fourth engine is one
     * {@link Engine} class plus one line here.
     */
    public static EngineRegistry defaults() {
        return of(List.of(new PostgresEngine(), new RedisEngine(), new MongoEngine()));
    }

    public static EngineRegistry of(Collection<? extends Engine> list) {
        Map<String, Engine> map = new LinkedHashMap<>();
        for (Engine engine : list) {
            if (map.putIfAbsent(engine.name(), engine) != null) {
                throw new IllegalArgumentException("engine '" + engine.name() + "' registered twice");
            }
        }
        return new EngineRegistry(map);
    }

    /**
     * This registry plus {@code more}, e.g. an embedding's own engine on top of {@link #defaults()}: the same one
     * line a shipped engine takes. Duplicates are refused as in {@link #of}.
     */
    public EngineRegistry with(Engine... more) {
        List<Engine> all = new ArrayList<>(engines.values());
        all.addAll(List.of(more));
        return of(all);
    }

    /** The engine called {@code name}, or an {@link UnknownNameException} listing the known ones. */
    public Engine require(String name) {
        Engine engine = engines.get(name);
        if (engine == null) {
            throw new UnknownNameException(
                    "no engine '" + Printable.of(name) + "'; known: " + String.join(", ", names()));
        }
        return engine;
    }

    public Optional<Engine> find(String name) {
        return Optional.ofNullable(engines.get(name));
    }

    /** Known engine names, sorted. */
    public Set<String> names() {
        return new TreeSet<>(engines.keySet());
    }

    /** Engines in registration order. */
    public Collection<Engine> all() {
        return engines.values();
    }

    /**
     * The engines offering an optional capability, e.g. {@code offering(Engine::checkpoints)}, in registration order:
     * the core asks which engines do something and never names one.
     */
    public List<Engine> offering(Function<? super Engine, ? extends Optional<?>> capability) {
        return engines.values().stream()
                .filter(e -> capability.apply(e).isPresent())
                .toList();
    }

    /** The first engine offering {@code capability} (registration order) among {@code services}: which of a set does it. */
    public Optional<Engine> firstOffering(
            Collection<String> services, Function<? super Engine, ? extends Optional<?>> capability) {
        return offering(capability).stream()
                .filter(e -> services.contains(e.name()))
                .findFirst();
    }

    /** The names of the engines offering {@code capability} as a message says them: {@code postgres}, {@code postgres or redis}. */
    public String namesOffering(Function<? super Engine, ? extends Optional<?>> capability) {
        List<String> names = offering(capability).stream().map(Engine::name).toList();
        return names.isEmpty() ? "none" : String.join(" or ", names);
    }

    /**
     * Checks that every feature is on the engine's allowlist; the error names the allowlist.
     * Comparison is exact: no case folding, trimming or normalisation (a look-alike is a different name).
     */
    public void requireFeatures(String engineName, Collection<String> features) {
        Engine engine = require(engineName);
        for (String feature : features) {
            Features.require(engine, feature);
        }
    }
}
