package dev.zluda.runtime.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The three benchmark kernels ({@link EmulatorWorkloads}: aluBound, saxpy, blockReduce) compute what
 * their Java models say, at small sizes, on 1 and 2 host threads, with ragged shapes (a partial warp,
 * a grid that does not divide the work); and each reports the thread-instructions its PTX implies.
 */
class BenchmarkKernelsTest {
    @Test
    void aluBoundMatchesModel() throws Exception {
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            EmulatorWorkloads.Workload k = w.alu(3, 40, 37);
            for (int threads : new int[] {1, 2}) {
                LaunchResult r = k.launch(new Emulator(threads));
                k.check().run();
                // per thread: 14 before the loop, 11 a round, 9 after (PTX text); 3 CTAs of 40 threads
                assertEquals(3L * 40 * (14 + 11 * 37 + 9), r.threadInstructions());
            }
        }
    }

    @Test
    void saxpyMatchesModel() throws Exception {
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            EmulatorWorkloads.Workload k = w.saxpy(5, 64, 10_007);
            for (int threads : new int[] {1, 2}) {
                LaunchResult r = k.launch(new Emulator(threads));
                k.check().run();
                // per thread 16 instructions before the loop and the ret (every thread has an element), 11 an element
                assertEquals(5L * 64 * (16 + 1) + 11L * 10_007, r.threadInstructions());
            }
        }
    }

    @Test
    void blockReduceMatchesModel() throws Exception {
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            EmulatorWorkloads.Workload k = w.blockReduce(3, 10);
            for (int threads : new int[] {1, 2}) {
                k.launch(new Emulator(threads));
                k.check().run();
            }
        }
    }
}
