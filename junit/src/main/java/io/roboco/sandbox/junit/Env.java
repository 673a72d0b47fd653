package io.roboco.sandbox.junit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Settings (a system property of the name, else the environment variable) and the checks on an answered env dict. */
final class Env {
    private Env() {}

    /** The setting's value, blank as absent. */
    static String setting(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            v = System.getenv(name);
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    static void require(Map<String, String> env, String service, String prefix, String... keys) {
        List<String> missing = new ArrayList<>();
        for (String k : keys) {
            if (env.get(prefix + k) == null) {
                missing.add(prefix + k);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the " + service + " sandbox's answer lacks " + missing
                    + "; is the server a RoboCo Sandbox server of this version?");
        }
    }
}
