package dev.quotaenforcer.plan;

/** A plan or key assignment that cannot be accepted; the message names the field and the value. */
public final class InvalidPlanException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidPlanException(String field, String message) {
        super(field.isEmpty() ? message : field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
