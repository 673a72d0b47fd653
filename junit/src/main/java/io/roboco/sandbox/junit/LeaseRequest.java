package io.roboco.sandbox.junit;

import java.util.List;
import java.util.Map;

/** What one lease asks for: the services (one sandbox holding them all), its project, name, TTL, labels, template. */
record LeaseRequest(
        String project, List<String> services, String name, String ttl, Map<String, String> labels, String template) {
    LeaseRequest {
        services = List.copyOf(services);
        labels = Map.copyOf(labels);
    }
}
