package io.roboco.sandbox.bench;

public final class Bench {
    public static void main(String[] args) {
        System.out.println(org.testcontainers.containers.GenericContainer.class.getName());
    }
}
