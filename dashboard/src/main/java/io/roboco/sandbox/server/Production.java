package io.roboco.sandbox.server;

import java.time.Clock;

/** The production parts: the engine registry, the Docker runtime and the persistent settings store. */
final class Production {
    private Production() {
    }

    static RunningServer start(ServerConfig config) {
        throw new ConfigException("this build has no production wiring yet (engines, Docker runtime and settings store pending merge)");
    }

    static Clock clock() {
        return Clock.systemUTC();
    }
}
