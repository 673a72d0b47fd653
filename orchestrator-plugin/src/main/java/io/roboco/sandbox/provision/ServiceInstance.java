package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.runtime.Limits;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

/**
 * One running, ready sandbox service: the container, where it answers ({@code endpoint}: where the plugin reaches it;
 * {@link #agentEndpoint()}: where its agent does, the same in host mode), its credentials, the features
 * activated in it so far, the major it runs (empty when its image does not say), the caps it was started with
 * (null when not known), and whether it was claimed from the warm pool. Held in the plugin's memory; its
 * credentials reach the store only sealed (re-adoption after a restart).
 */
public record ServiceInstance(
        String service,
        String image,
        String containerId,
        String containerName,
        Endpoint endpoint,
        Credentials credentials,
        Set<String> features,
        Instant created,
        String major,
        Limits limits,
        boolean fromPool,
        Endpoint agentEndpoint) {
    public ServiceInstance {
        features = Set.copyOf(features);
        major = major == null ? "" : major;
        agentEndpoint = agentEndpoint == null ? endpoint : agentEndpoint;
    }

    /** An instance its agent reaches where the plugin does (host mode). */
    public ServiceInstance(
            String service,
            String image,
            String containerId,
            String containerName,
            Endpoint endpoint,
            Credentials credentials,
            Set<String> features,
            Instant created,
            String major,
            Limits limits,
            boolean fromPool) {
        this(
                service,
                image,
                containerId,
                containerName,
                endpoint,
                credentials,
                features,
                created,
                major,
                limits,
                fromPool,
                null);
    }

    /** An instance started for its owner (not claimed from the warm pool). */
    public ServiceInstance(
            String service,
            String image,
            String containerId,
            String containerName,
            Endpoint endpoint,
            Credentials credentials,
            Set<String> features,
            Instant created,
            String major,
            Limits limits) {
        this(
                service,
                image,
                containerId,
                containerName,
                endpoint,
                credentials,
                features,
                created,
                major,
                limits,
                false);
    }

    /** An instance whose container caps are not known (null {@link #limits()}). */
    public ServiceInstance(
            String service,
            String image,
            String containerId,
            String containerName,
            Endpoint endpoint,
            Credentials credentials,
            Set<String> features,
            Instant created,
            String major) {
        this(service, image, containerId, containerName, endpoint, credentials, features, created, major, null);
    }

    /** An instance whose major is not known. */
    public ServiceInstance(
            String service,
            String image,
            String containerId,
            String containerName,
            Endpoint endpoint,
            Credentials credentials,
            Set<String> features,
            Instant created) {
        this(service, image, containerId, containerName, endpoint, credentials, features, created, "");
    }

    public ServiceInstance withFeatures(Set<String> more) {
        Set<String> all = new TreeSet<>(features);
        all.addAll(more);
        return new ServiceInstance(
                service,
                image,
                containerId,
                containerName,
                endpoint,
                credentials,
                all,
                created,
                major,
                limits,
                fromPool,
                agentEndpoint);
    }

    /** The same instance, its agent told to connect to {@code where} (network mode: the container's name on its owner's network). */
    public ServiceInstance withAgentEndpoint(Endpoint where) {
        return new ServiceInstance(
                service,
                image,
                containerId,
                containerName,
                endpoint,
                credentials,
                features,
                created,
                major,
                limits,
                fromPool,
                where);
    }

    @Override
    public String toString() {
        return "ServiceInstance[" + service + (major.isEmpty() ? "" : " " + major) + " " + containerName + " ("
                + containerId + ") at " + endpoint
                + (agentEndpoint.equals(endpoint) ? "" : " (agent: " + agentEndpoint + ")")
                + ", features=" + features + (fromPool ? ", from the pool" : "")
                + "]";
    }
}
