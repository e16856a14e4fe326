/*
 * zluda driver entry: the part of dist/lib/libcuda.so.1 that is not generated.
 *
 * On the first call it boots a JVM inside the host process and asks the Java driver
 * (dev.zluda.runtime.entry.NativeEntry.boot) for an FFM upcall stub that takes (id, words);
 * every exported CUDA function (zluda_exports.c, generated) then calls that stub. The JVM is found
 * through ZLUDA_JAVA_HOME, else the dist/jre next to this library, else JAVA_HOME; its class path
 * is ZLUDA_CLASSPATH (':'-separated) or every jar in the directory of this library; extra JVM
 * options come from ZLUDA_JVM_OPTS (space-separated). -Xrs keeps the JVM off the host's signals.
 * If the JVM cannot start, every call returns CUDA_ERROR_NOT_INITIALIZED and one message goes to
 * stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zluda_entry.h"

#define CUDA_ERROR_NOT_INITIALIZED 3

typedef int (*zl_dispatch_fn)(int, uint64_t *);
typedef jint (*create_vm_fn)(JavaVM **, void **, void *);
typedef jint (*created_vms_fn)(JavaVM **, jsize, jsize *);

static pthread_once_t boot_once = PTHREAD_ONCE_INIT;
static zl_dispatch_fn dispatch_fn;

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "[ZLUDA] cannot start the zluda driver: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
}

/* Directory of this library (dist/lib when installed). */
static int own_dir(char *buf, size_t cap) {
    Dl_info info;
    if (!dladdr((void *)&zl_call, &info) || !info.dli_fname) return 0;
    char real[PATH_MAX];
    if (!realpath(info.dli_fname, real)) snprintf(real, sizeof real, "%s", info.dli_fname);
    char *slash = strrchr(real, '/');
    if (!slash) return 0;
    *slash = 0;
    snprintf(buf, cap, "%s", real);
    return 1;
}

static void *open_jvm(const char *java_home, char *tried, size_t cap) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/lib/server/libjvm.so", java_home);
    size_t len = strlen(tried);
    snprintf(tried + len, cap - len, "%s%s", len ? ", " : "", path);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

static char *class_path(const char *lib_dir) {
    const char *env = getenv("ZLUDA_CLASSPATH");
    if (env && *env) return strdup(env);
    DIR *d = opendir(lib_dir);
    if (!d) return NULL;
    size_t cap = 4096, len = 0;
    char *cp = malloc(cap);
    if (!cp) { closedir(d); return NULL; }
    cp[0] = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".jar") != 0) continue;
        size_t need = len + strlen(lib_dir) + n + 3;
        if (need > cap) {
            cap = need * 2;
            char *bigger = realloc(cp, cap);
            if (!bigger) { free(cp); closedir(d); return NULL; }
            cp = bigger;
        }
        len += (size_t)sprintf(cp + len, "%s%s/%s", len ? ":" : "", lib_dir, e->d_name);
    }
    closedir(d);
    return cp;
}

/* At exit, the Java side ends the capture (PROCESS_END) when the trace layer is on. */
static void at_exit(void) {
    if (dispatch_fn) dispatch_fn(-1, NULL);
}

static void boot(void) {
    char lib_dir[PATH_MAX] = ".";
    own_dir(lib_dir, sizeof lib_dir);
    char tried[4 * PATH_MAX] = "";
    void *jvm_lib = NULL;
    const char *zh = getenv("ZLUDA_JAVA_HOME");
    if (zh && *zh) jvm_lib = open_jvm(zh, tried, sizeof tried);
    if (!jvm_lib) {
        char jre[PATH_MAX];
        snprintf(jre, sizeof jre, "%s/../jre", lib_dir);
        jvm_lib = open_jvm(jre, tried, sizeof tried);
    }
    const char *jh = getenv("JAVA_HOME");
    if (!jvm_lib && jh && *jh) jvm_lib = open_jvm(jh, tried, sizeof tried);
    if (!jvm_lib) { fail("no Java runtime found; tried", tried); return; }

    created_vms_fn created = (created_vms_fn)dlsym(jvm_lib, "JNI_GetCreatedJavaVMs");
    create_vm_fn create = (create_vm_fn)dlsym(jvm_lib, "JNI_CreateJavaVM");
    if (!created || !create) { fail("libjvm.so lacks the JNI invocation API", NULL); return; }

    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    jsize n = 0;
    if (created(&vm, 1, &n) == JNI_OK && n > 0) {
        /* a JVM already runs in this process (a Java host program): use it */
        if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) { fail("cannot attach to the running JVM", NULL); return; }
    } else {
        char *cp = class_path(lib_dir);
        if (!cp || !*cp) { fail("no jars found in", lib_dir); free(cp); return; }
        char *cp_opt = malloc(strlen(cp) + 32);
        sprintf(cp_opt, "-Djava.class.path=%s", cp);
        free(cp);
        JavaVMOption opts[64];
        int nopt = 0;
        opts[nopt++].optionString = cp_opt;
        opts[nopt++].optionString = "-Xrs";
        opts[nopt++].optionString = "--enable-native-access=ALL-UNNAMED";
        opts[nopt++].optionString = "-XX:+UseSerialGC";
        opts[nopt++].optionString = "-Xss4m";
        /* lz4-java uses sun.misc.Unsafe: without this JDK 25 warns on the host program's stderr */
        opts[nopt++].optionString = "--sun-misc-unsafe-memory-access=allow";
        char *extra = NULL;
        const char *jo = getenv("ZLUDA_JVM_OPTS");
        if (jo && *jo) {
            extra = strdup(jo);
            for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok && nopt < 64; tok = strtok_r(NULL, " \t", &save)) {
                opts[nopt++].optionString = tok;
            }
        }
        for (int i = 0; i < nopt; i++) opts[i].extraInfo = NULL;
        JavaVMInitArgs args;
        args.version = JNI_VERSION_21;
        args.nOptions = nopt;
        args.options = opts;
        args.ignoreUnrecognized = JNI_FALSE;
        jint rc = create(&vm, (void **)&env, &args);
        free(cp_opt);
        /* extra's strings stay referenced by the JVM's argument list: keep them */
        if (rc != JNI_OK) { fail("JNI_CreateJavaVM failed", NULL); return; }
    }
    jclass entry = (*env)->FindClass(env, "dev/zluda/runtime/entry/NativeEntry");
    if (!entry) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); fail("class dev.zluda.runtime.entry.NativeEntry not found on the class path", NULL); return; }
    jmethodID m = (*env)->GetStaticMethodID(env, entry, "boot", "(JI)J");
    if (!m) { (*env)->ExceptionClear(env); fail("NativeEntry.boot(long,int) missing", NULL); return; }
    jlong stub = (*env)->CallStaticLongMethod(env, entry, m, (jlong)(uintptr_t)zl_functions, (jint)zl_function_count);
    if ((*env)->ExceptionCheck(env)) { (*env)->ExceptionDescribe(env); (*env)->ExceptionClear(env); fail("NativeEntry.boot threw", NULL); return; }
    if (!stub) { fail("NativeEntry.boot returned no dispatch stub", NULL); return; }
    dispatch_fn = (zl_dispatch_fn)(uintptr_t)stub;
    atexit(at_exit);
}

int zl_call(int id, uint64_t *words) {
    pthread_once(&boot_once, boot);
    if (!dispatch_fn) return CUDA_ERROR_NOT_INITIALIZED;
    /* the FFM upcall stub attaches this thread to the JVM if it is not attached yet */
    return dispatch_fn(id, words);
}
