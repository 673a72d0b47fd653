package io.roboco.sandbox.engine;

/**
 * Inputs to {@link Engine#containerSpec}: the image to run, the sandbox's credentials, and where the
 * service must listen ({@code bindHost} 127.0.0.1 and a free port in host-network mode; 0.0.0.0 and
 * the default port on a named network).
 */
public record SpecRequest(String image, Credentials credentials, String bindHost, int port) {
}
