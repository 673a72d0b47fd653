package io.roboco.sandbox.inspect;

import io.roboco.sandbox.engine.Engine;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * {@code describe_sandbox} for a Redis sandbox, with the agent's own ACL user: DBSIZE, INFO modules, INFO memory
 * and INFO keyspace (the agent user may run INFO; MODULE LIST is an admin command it lacks). Reads no values.
 */
public final class RedisInspector {
    private static final Set<String> MEMORY_FIELDS = Set.of(
            "used_memory",
            "used_memory_human",
            "used_memory_peak_human",
            "maxmemory",
            "maxmemory_human",
            "maxmemory_policy");

    private RedisInspector() {}

    /** @param engine the Redis engine, which names the feature each loaded module provides */
    public static Outcome<RedisDescription> describe(
            Engine engine, String host, int port, String user, String password) {
        String tag = Untrusted.newTag();
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(user)
                .password(password)
                .connectionTimeoutMillis(5000)
                .socketTimeoutMillis(5000)
                .clientName("roboco-sandbox-inspect")
                .build();
        try (Jedis jedis = new Jedis(new HostAndPort(host, port), config)) {
            long keys = jedis.dbSize();
            Map<String, String> server = fields(jedis.info("server"));
            List<String> modules = new ArrayList<>();
            for (String line : jedis.info("modules").split("\r?\n")) {
                // module:name=search,ver=20608,api=1,filters=0,usedby=[],using=[],options=[]
                if (line.startsWith("module:name=")) {
                    String rest = line.substring("module:name=".length());
                    modules.add(rest.contains(",") ? rest.substring(0, rest.indexOf(',')) : rest);
                }
            }
            Map<String, String> memory = new LinkedHashMap<>();
            fields(jedis.info("memory")).forEach((k, v) -> {
                if (MEMORY_FIELDS.contains(k)) {
                    memory.put(k, v);
                }
            });
            Map<String, String> keyspace = fields(jedis.info("keyspace"));
            List<String> features = modules.stream()
                    .map(engine::featureOfLoaded)
                    .flatMap(Optional::stream)
                    .distinct()
                    .sorted()
                    .toList();
            RedisDescription.Facts facts =
                    new RedisDescription.Facts(server.get("redis_version"), keys, modules, features, memory, keyspace);
            return new Outcome.Ok<>(new RedisDescription(Untrusted.of(tag, facts), keys, modules.size()));
        } catch (JedisException e) {
            return new Outcome.Failed<>(
                    "the sandbox's Redis at " + host + ":" + port + " did not answer as expected; retry shortly "
                            + "(request_sandbox re-checks a sandbox and replaces a dead one)",
                    null,
                    Untrusted.of(tag, String.valueOf(e.getMessage())),
                    true);
        }
    }

    private static Map<String, String> fields(String info) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                out.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return out;
    }
}
