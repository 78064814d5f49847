package dev.quotaenforcer.http;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Comparator;

/**
 * One key of a plan in an hour: what it was allowed and denied, and how much of its quota policy
 * it has used at the moment asked about: now, or the end of a past hour (quotaLimit 0 when the plan
 * has no quota policy).
 */
@JsonIgnoreProperties(value = "quotaShare", allowGetters = true)
@JsonPropertyOrder({"apiKey", "allowed", "denied", "allowedCost", "quotaDenied", "quotaUsed", "quotaLimit", "quotaShare"})
public record TopKey(String apiKey, long allowed, long denied, long allowedCost, long quotaDenied, long quotaUsed,
                     long quotaLimit) {

    /** Largest share of quota first; then most denied over quota; then most cost allowed. */
    static final Comparator<TopKey> NEAREST_TO_QUOTA = Comparator.comparingDouble(TopKey::quotaShare).reversed()
            .thenComparing(Comparator.comparingLong(TopKey::quotaDenied).reversed())
            .thenComparing(Comparator.comparingLong(TopKey::allowedCost).reversed())
            .thenComparing(TopKey::apiKey);

    /** Used share of the quota, 0..1; 0 without a quota policy. */
    @JsonProperty("quotaShare")
    public double quotaShare() {
        return quotaLimit == 0 ? 0 : (double) quotaUsed / quotaLimit;
    }
}
