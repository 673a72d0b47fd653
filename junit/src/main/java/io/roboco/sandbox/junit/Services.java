package io.roboco.sandbox.junit;

import java.util.Map;

/** The sandbox types the extension fills, by the service (engine) each stands for. */
final class Services {
    private static final Map<Class<?>, String> BY_TYPE =
            Map.of(PostgresSandbox.class, "postgres", RedisSandbox.class, "redis", MongoSandbox.class, "mongo");

    private Services() {}

    static boolean isSandbox(Class<?> type) {
        return BY_TYPE.containsKey(type);
    }

    static String of(Class<?> type) {
        String s = BY_TYPE.get(type);
        if (s == null) {
            throw new IllegalArgumentException(
                    type.getName() + " is no sandbox type; use PostgresSandbox, RedisSandbox or MongoSandbox");
        }
        return s;
    }
}
