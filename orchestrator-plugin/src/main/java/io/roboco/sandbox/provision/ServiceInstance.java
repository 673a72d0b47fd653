package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;

import java.time.Instant;
import java.util.Set;

/**
 * One running, ready sandbox service: the container, where it answers, its credentials, the features
 * activated in it so far, and the major it runs (empty when its image does not say). Held only in the
 * plugin's memory.
 */
public record ServiceInstance(String service, String image, String containerId, String containerName,
                              Endpoint endpoint, Credentials credentials, Set<String> features, Instant created, String major) {
    public ServiceInstance {
        features = Set.copyOf(features);
        major = major == null ? "" : major;
    }

    /** An instance whose major is not known. */
    public ServiceInstance(String service, String image, String containerId, String containerName,
                           Endpoint endpoint, Credentials credentials, Set<String> features, Instant created) {
        this(service, image, containerId, containerName, endpoint, credentials, features, created, "");
    }

    public ServiceInstance withFeatures(Set<String> more) {
        java.util.Set<String> all = new java.util.TreeSet<>(features);
        all.addAll(more);
        return new ServiceInstance(service, image, containerId, containerName, endpoint, credentials, all, created, major);
    }

    @Override
    public String toString() {
        return "ServiceInstance[" + service + (major.isEmpty() ? "" : " " + major) + " " + containerName + " (" + containerId
                + ") at " + endpoint + ", features=" + features + "]";
    }
}
