package dev.rigorbench.demo.lib;

/**
 * A tiny number-crunching library: the "code under test" of the demo.
 *
 * <p>This is version 1 (the baseline). Version 2 of this class changes
 * {@link #sumCsv(String)} (adds an input check: slower) and
 * {@link #countPrimes(int, int)} (a better primality test: faster);
 * {@link #mean}, {@link #variance} and {@link #standardize} are identical in both versions.
 */
public final class Numbers {

    private Numbers() {
    }

    /**
     * Parses a line of comma-separated decimal integers such as {@code "12,-7,40"}
     * and returns their sum.
     */
    public static long sumCsv(String line) {
        long total = 0;
        long current = 0;
        boolean negative = false;
        for (int i = 0, n = line.length(); i < n; i++) {
            char c = line.charAt(i);
            if (c == ',') {
                total += negative ? -current : current;
                current = 0;
                negative = false;
            } else if (c == '-') {
                negative = true;
            } else {
                current = current * 10 + (c - '0');
            }
        }
        return total + (negative ? -current : current);
    }

    /** Counts the primes in {@code [from, to)}. */
    public static int countPrimes(int from, int to) {
        int count = 0;
        for (int n = from; n < to; n++) {
            if (isPrime(n)) {
                count++;
            }
        }
        return count;
    }

    /** Trial division by 2 and then by every odd number up to sqrt(n). */
    static boolean isPrime(int n) {
        if (n < 2) {
            return false;
        }
        if (n % 2 == 0) {
            return n == 2;
        }
        for (int d = 3; d * d <= n; d += 2) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }

    /** Arithmetic mean; rejects an empty array. */
    public static double mean(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("mean of an empty array");
        }
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** Sample variance (two-pass algorithm); rejects arrays with fewer than two values. */
    public static double variance(double[] values) {
        if (values.length < 2) {
            throw new IllegalArgumentException("variance needs at least two values, got " + values.length);
        }
        double m = mean(values);
        double squares = 0;
        for (double v : values) {
            double d = v - m;
            squares += d * d;
        }
        return squares / (values.length - 1);
    }

    /**
     * Standard scores: a new array holding {@code (v - mean) / standardDeviation} for
     * every value. Allocates the result (so it shows up in JMH's {@code -prof gc}).
     */
    public static double[] standardize(double[] values) {
        double m = mean(values);
        double scale = 1 / Math.sqrt(variance(values));
        double[] z = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            z[i] = (values[i] - m) * scale;
        }
        return z;
    }
}
