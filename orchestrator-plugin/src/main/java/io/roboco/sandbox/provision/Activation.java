package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.ProbeTarget;
import java.util.Set;
import java.util.TreeSet;

/** Allowlisted features switched on inside a running container, through the engine's exec (never a mount or init script). */
final class Activation {
    private final Containers containers;
    private final Seeding seeding;

    Activation(Containers containers, Seeding seeding) {
        this.containers = containers;
        this.seeding = seeding;
    }

    /** The plan's seed (none: nothing), after the features, as the agent of {@code target}: a failure is the caller's to diagnose. */
    void seed(ServicePlan plan, ProbeTarget target, String containerId) throws Exception {
        seeding.apply(plan, target, containers.exec(containerId));
    }

    /** Every feature, in name order, during a start or a claim: a failure is the caller's to diagnose. */
    void all(Engine engine, String containerId, Credentials credentials, String image, Set<AllowedFeature> features)
            throws Exception {
        for (AllowedFeature feature : new TreeSet<>(features)) {
            engine.activate(feature, containers.exec(containerId), credentials, image);
        }
    }

    /** The plan's features a live service lacks, without a teardown; returns the updated instance. */
    ServiceInstance missing(ServicePlan plan, ServiceInstance instance) throws ProvisionException {
        Engine engine = plan.engine();
        Set<AllowedFeature> missing = new TreeSet<>(plan.features());
        missing.removeIf(f -> instance.features().contains(f.name()));
        if (missing.isEmpty()) {
            return instance;
        }
        for (AllowedFeature feature : missing) {
            try {
                engine.activate(
                        feature, containers.exec(instance.containerId()), instance.credentials(), instance.image());
            } catch (FeatureUnavailableException e) {
                throw new ProvisionException(e.getMessage(), false, null);
            } catch (Exception e) {
                throw new ProvisionException(
                        engine.name() + " feature '" + feature + "' could not be activated for "
                                + instance.containerName() + ": "
                                + Redaction.of(String.valueOf(e.getMessage()), instance.credentials()),
                        true,
                        null);
            }
        }
        return instance.withFeatures(plan.featureNames());
    }
}
