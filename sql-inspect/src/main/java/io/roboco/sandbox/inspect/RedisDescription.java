package io.roboco.sandbox.inspect;

import java.util.List;
import java.util.Map;

/** {@code describe_sandbox} for Redis: key count, loaded modules and memory. */
public record RedisDescription(Untrusted<Facts> data, long keys, int modules) implements InspectionResult {

    /**
     * @param modules  loaded module names as INFO modules reports them (RediSearch is {@code search} or {@code ft}, by build)
     * @param features the allowlisted features those modules provide, named as request_sandbox names them ({@code search, json, bloom})
     * @param memory   INFO memory fields an agent acts on: used_memory, used_memory_human, used_memory_peak_human,
     *                 maxmemory, maxmemory_human, maxmemory_policy
     * @param keyspace INFO keyspace per database, e.g. {@code db0 → keys=3,expires=0,avg_ttl=0}
     */
    public record Facts(
            String version,
            long keys,
            List<String> modules,
            List<String> features,
            Map<String, String> memory,
            Map<String, String> keyspace) {}

    @Override
    public String summary() {
        return keys + " keys, " + modules + (modules == 1 ? " module" : " modules");
    }
}
