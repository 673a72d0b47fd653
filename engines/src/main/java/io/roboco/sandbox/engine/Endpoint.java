package io.roboco.sandbox.engine;

/** Where a service answers: {@code 127.0.0.1:port} in host-network mode, {@code container-name:port} on a named network. */
public record Endpoint(String host, int port) {
    @Override
    public String toString() {
        return host + ":" + port;
    }
}
