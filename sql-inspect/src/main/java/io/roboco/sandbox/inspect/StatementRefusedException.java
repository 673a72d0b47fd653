package io.roboco.sandbox.inspect;

/** The execution layer refused a statement before sending it (what the driver would do with it is unsafe). */
final class StatementRefusedException extends Exception {
    private final String rule;

    StatementRefusedException(String rule, String message) {
        super(message);
        this.rule = rule;
    }

    String rule() {
        return rule;
    }
}
