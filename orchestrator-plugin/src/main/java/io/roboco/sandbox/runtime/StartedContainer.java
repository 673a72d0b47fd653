package io.roboco.sandbox.runtime;

/** A container the runtime created and started. */
public record StartedContainer(String id, String name) {}
