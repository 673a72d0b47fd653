package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.runtime.Limits;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * One service to ready for an agent, already validated: its engine, the image it runs (a project's major or the
 * server's image), and the features to activate there, each on the engine's allowlist ({@link AllowedFeature}).
 * The guard chain made it ({@code SandboxRequest}) and checked that the image offers those features; the
 * provisioner, the warm pool and the engines take it as it is and never re-check it. (An image the engine knows
 * nothing about may still lack one: activation then fails with {@code FeatureUnavailableException}.)
 * {@code seed} (null: none) is what the new database starts with, applied after activation as the agent.
 * {@code limits} are the container's caps (the project's {@code sandbox_limits} over the server's defaults, already
 * within the operator's maximums); null means the provisioner's defaults.
 */
public record ServicePlan(Engine engine, ImageChoice image, Set<AllowedFeature> features, Seed seed, Limits limits) {
    /** A plan with a seed, on the provisioner's default limits. */
    public ServicePlan(Engine engine, ImageChoice image, Set<AllowedFeature> features, Seed seed) {
        this(engine, image, features, seed, null);
    }

    /** A plan without a seed, on the provisioner's default limits. */
    public ServicePlan(Engine engine, ImageChoice image, Set<AllowedFeature> features) {
        this(engine, image, features, null, null);
    }

    public ServicePlan {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(image, "image");
        features = Set.copyOf(features);
        if (!image.engine().equals(engine.name())) {
            throw new IllegalArgumentException("image " + image.describe() + " is not a " + engine.name() + " image");
        }
        for (AllowedFeature feature : features) {
            if (!feature.engine().equals(engine.name())) {
                throw new IllegalArgumentException(engine.name() + " plan for " + image.describe() + " cannot carry "
                        + feature.engine() + " feature '" + feature.name() + "'");
            }
        }
    }

    /** The caps to start this service with: {@link #limits()}, or {@code defaults} when the plan has none. */
    public Limits limitsOr(Limits defaults) {
        return limits == null ? defaults : limits;
    }

    /** The service (engine) name, e.g. {@code postgres}. */
    public String service() {
        return engine.name();
    }

    /** The features' names, sorted: what a {@link ServiceInstance} records as activated. */
    public Set<String> featureNames() {
        Set<String> names = new TreeSet<>();
        features.forEach(f -> names.add(f.name()));
        return names;
    }
}
