package io.roboco.sandbox.testkit;

/** Keeps passwords out of assertion messages and test output. */
public final class Redact {
    private Redact() {}

    public static String passwords(String text) {
        if (text == null) {
            return null;
        }
        return text.replaceAll("(PASSWORD\"\\s*:\\s*\")[^\"]*", "$1<redacted>")
                .replaceAll("(://[^:/@\"\\s]+:)[^@\"\\s]+@", "$1<redacted>@");
    }
}
