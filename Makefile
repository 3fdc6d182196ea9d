# sshelf — `make run` starts the program, `make test` runs every test; both install what they need first.
SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
BUILD_FLAGS ?= -Xswiftc -warnings-as-errors
# The release binary links the Swift runtime and Foundation statically (the dynamic loader's symbol binding
# was 75% of a `sshelf list`), with the toolchain's lld packing its 75,000 relative relocations (DT_RELR,
# glibc 2.36+): the loader no longer reads a 1.8 MB table at every start; and laying out first, together, the
# functions everyday commands and the TUI run (each function in a section of its own, placed by the list in
# bench/link-order.txt, made by bench/link-order): a start then maps a few MiB of code instead of 6-10. See
# docs/PERFORMANCE.md. No $ORIGIN run path: the binary is installed into /usr/bin (make install, make deb) and must
# not look for the libraries it opens next to itself. Small as built (issue 22: 20 MB, not stripped afterwards): no
# debug info, no symbol table (7.6 MB of names), and none of the executable's own functions in its dynamic symbol
# table (nothing sshelf loads looks them up). `make release-symbols` builds the same binary with its symbol table,
# into .build/symbols, for profiling (bench/link-order).
RELEASE_BASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld \
	-Xlinker -z -Xlinker pack-relative-relocs -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --symbol-ordering-file=$(CURDIR)/bench/link-order.txt -Xlinker --no-warn-symbol-ordering \
	-Xswiftc -gnone -Xlinker --no-export-dynamic
RELEASE_FLAGS ?= $(RELEASE_BASE_FLAGS) -Xlinker --strip-all

# The shared libraries a release binary loads at start (libssh2, libcrypto and libsodium are opened on first use;
# SQLite and libstdc++ are linked from their static archives): see docs/PERFORMANCE.md, "Start-up".
START_LIBRARIES := libncursesw.so.6 libtinfo.so.6 libm.so.6 libgcc_s.so.1 libc.so.6 ld-linux-x86-64.so.2
CLANG ?= $(dir $(realpath $(shell command -v $(SWIFT) 2>/dev/null)))clang

# Debian packages to build and run, and the ones whose programs the tests run — each program declared with its
# package in Tests/TestSupport/TestTools.swift, which DeclaredToolsTests holds against this list (the shells:
# completion tests; git-filter-repo: the sync migration's git-history fix is followed as written; nc and socat:
# ProxyCommand; rsync, scp: the bridge; python3: a socket another uid binds).
RUN_DEBS := pkg-config binutils libssh2-1-dev libsodium-dev libsqlite3-dev libncurses-dev libssl-dev
# dpkg-dev: dpkg-shlibdeps for the package's Depends (make deb); lintian checks the package (PackageTests).
DEB_DEBS := dpkg-dev
# What scripts/libssh2-newer needs to fetch Debian 13's libssh2 source package (apt, dpkg-source) and build it.
LIBSSH2_BUILD_DEBS := dpkg-dev gcc make libssl-dev zlib1g-dev debian-archive-keyring
TEST_DEBS := $(RUN_DEBS) $(DEB_DEBS) $(LIBSSH2_BUILD_DEBS) lintian openssh-server openssh-client tmux systemd git git-filter-repo \
	procps sudo bash zsh fish dash netcat-openbsd socat rsync python3-minimal coreutils util-linux mount passwd dpkg apt
# What `make bench` runs and compares with (bench/*.bench): hyperfine, fzf (the TUI's peer), pssh and clustershell
# (sshelf run's peers, bench/fleet.bench), OpenSSH's sftp and scp and its sshd (bench/files.bench: the file pane and
# its copies; python3 runs its delaying proxy, bench/delay-proxy.py, and drives the pane on a pty, bench/ptydrive).
BENCH_DEBS := hyperfine fzf python3 pssh clustershell openssh-client openssh-server linux-perf valgrind
# The second run of `make test`, against libssh2 1.11.1: the suites that log in, run commands, forward, use an agent
# or hand a host to OpenSSH (scripts/run-tests --filter, a regex over Target.Class/test).
SSH_MATRIX_TESTS ?= ShelfSSHTests\.(KeepaliveMemoryTests|SessionWindowTests|AuthTests|KeyBeforeMethodsTests|ConnectTests|TransportTests|ExecTests|CancelTests|JumpTests|HostKeyTests|LibSSH|ForwardEngineTests|ForwardRemoteTests|ForwardSocksTests|ForwardSocketTests|VerifiedSessionTests)|ShelfAppTests\.(ExecCommandTests|VaultKeyLoginTests|PinAndRefusalTests|AgentSSHTests|CopyIDTests|BridgeOpenSSHTests|ForwardUpTests|LibraryFeatureTests|RSALoginTests|EveryKeyTests|EveryKeyRunOptionsTests|OptionNoteTests|ExecInterruptTests|WarmSideBySideTests|WarmKeepaliveTests|WarmRevocationTests|RunInterruptTests|RunReportingTests|RunAsPsshTests|CopyCommandTests|CopyHostileServerTests|CopyInterruptTests|UserCertificateTests|HostCertificateTests|CertificateAuthorityTests|CertificateRenewalTests|CAPinSyncTests|RevokedHostKeysTests|AgentBoundKeyTests|OptionsClientTests|TUIOpenSSHHandoverTests|SecurityKeyHandoverTests|ForwardSocketCLITests|KeyExchangeTests|PostQuantumOnlyTests|PostQuantumRequireTests|OpenSSHAgentPassphraseTests|PostQuantumOnlyJumpTests|PostQuantumForwardUpTests|PostQuantumTrustTests|PostQuantumLastSessionTests|TUIPostQuantumTests|RecordingTests|TUIFilesTests|TUIFilesEditTests|TUIFilesLongNameTests|TUIFilesHostileCopyTests|OpenSSHChildTests|CopyLanesTests)

# The layer suites, run first by `make test` and on their own (scripts/test-matrix): the operations and the services on
# a scratch store and vault, without the binary's commands or sshd — seconds, so a broken rule shows at once.
LAYER_TESTS ?= ShelfOperationsTests|ShelfServicesTests

.PHONY: run test test-under-load build release release-symbols deps test-deps install deb resources check-resources bench convergence \
	clean libssh2-1.11 install-libssh2-1.11 format lint

deps:
	@scripts/ensure-debs $(RUN_DEBS)

test-deps:
	@scripts/ensure-debs $(TEST_DEBS)

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

# libstdc++'s static archive where Package.swift's release link looks first (the toolchain's clang knows the path);
# after linking, the libraries the binary loads at start are checked: exactly these, or the build fails.
release: deps
	@mkdir -p .build/static-libs && ln -sf "$$($(CLANG) -print-file-name=libstdc++.a)" .build/static-libs/libstdc++.a
	$(SWIFT) build $(RELEASE_FLAGS) --product sshelf $(BUILD_FLAGS)
	@scripts/check-start-libraries "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/sshelf" $(START_LIBRARIES)

# The release binary with its symbol table (a separate build folder), for bench/link-order and profilers.
release-symbols: deps
	@mkdir -p .build/static-libs && ln -sf "$$($(CLANG) -print-file-name=libstdc++.a)" .build/static-libs/libstdc++.a
	$(SWIFT) build $(RELEASE_BASE_FLAGS) --scratch-path .build/symbols --product sshelf $(BUILD_FLAGS)

run: release
	@$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/sshelf $(ARGS)

# The layer suites (LAYER_TESTS) first, then every other test target, in parallel worker processes, then the SSH
# suites again against libssh2 1.11.1 (built once into .build/, see scripts/libssh2-newer). The closing
# "N passed, N failed" line adds the three runs' lines together.
# The Debian package is built first: PackageTests installs it into a scratch root and runs it from there.
test: test-deps deb
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	SSHELF_DEB=$(DEB) LAYER_TESTS='$(LAYER_TESTS)' SSH_MATRIX_TESTS='$(SSH_MATRIX_TESTS)' scripts/test-matrix

# libssh2 1.11.1 from Debian 13's source package, built into .build/libssh2-1.11.1/prefix (apt with a private
# configuration; the system's sources are not touched).
libssh2-1.11:
	@scripts/ensure-debs $(LIBSSH2_BUILD_DEBS)
	@scripts/libssh2-newer

# For a Debian 12 user who wants what libssh2 1.11 adds (RSA keys with rsa-sha2, the login banner, signals): puts
# that build where sshelf's loader looks before the system's, $(PREFIX)/lib/sshelf/libssh2.so.1. Debian's security
# updates do not reach this copy: run this again after one (it refetches), or remove the file to go back.
install-libssh2-1.11:
	@scripts/ensure-debs $(LIBSSH2_BUILD_DEBS)
	rm -rf .build/libssh2-1.11.1/prefix
	install -d -m 755 $(DESTDIR)$(PREFIX)/lib/sshelf
	install -m 644 "$$(scripts/libssh2-newer | tail -n 1)/libssh2.so.1" $(DESTDIR)$(PREFIX)/lib/sshelf/libssh2.so.1

# The whole suite three times in a row while a CPU hog keeps every core busy (see scripts/test-under-load); fails if
# any run failed. SSHELF_TEST_DEADLINE_SCALE stretches every test deadline on a machine slower still.
test-under-load: test-deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	scripts/test-under-load

# Regenerates the man page and completions from the command table (a test fails when they are stale).
resources: build
	$$($(SWIFT) build --show-bin-path)/sshelf manpage > Resources/sshelf.1
	$$($(SWIFT) build --show-bin-path)/sshelf completions bash > Resources/completions/sshelf.bash
	$$($(SWIFT) build --show-bin-path)/sshelf completions zsh > Resources/completions/_sshelf
	$$($(SWIFT) build --show-bin-path)/sshelf completions fish > Resources/completions/sshelf.fish

# The toolchain's `swift format` with .swift-format: `format` rewrites Package.swift, Sources, Tests (and bench's Swift
# files) in place; `lint` fails, listing file:line, on whatever `format` would change and on any line over 120
# columns it cannot break (scripts/style; CI runs it after the tests).
format:
	@SWIFT=$(SWIFT) scripts/style format

lint:
	@SWIFT=$(SWIFT) scripts/style lint

# A Debian package of the release binary, the man page and the completions, for machines without the
# Swift toolchain: `apt install ./$(DEB)`. Depends names every library the binary opens (scripts/make-deb).
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/ShelfCLI/AppVersion.swift)
DEB := .build/deb/sshelf_$(VERSION)_amd64.deb
deb: release
	@scripts/ensure-debs $(DEB_DEBS)
	scripts/make-deb "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/sshelf" $(VERSION) .build/deb

install: release
	install -d -m 755 $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/sshelf $(DESTDIR)$(PREFIX)/bin/sshelf
	install -m 644 Resources/sshelf.1 $(DESTDIR)$(PREFIX)/share/man/man1/sshelf.1
	install -m 644 Resources/completions/sshelf.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/sshelf
	install -m 644 Resources/completions/_sshelf $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_sshelf
	install -m 644 Resources/completions/sshelf.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/sshelf.fish

# The sync convergence property (docs/SYNC.md, "Merge") over 5,000 random schedules (make test runs 1,000), or
# SSHELF_CONVERGENCE_SCHEDULES.
convergence: test-deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	SSHELF_CONVERGENCE_SCHEDULES=$${SSHELF_CONVERGENCE_SCHEDULES:-5000} scripts/run-tests --filter ShelfSyncTests.ConvergenceTests

bench: test-deps release
	scripts/ensure-debs $(BENCH_DEBS)
	RELEASE_FLAGS="$(RELEASE_FLAGS)" BUILD_FLAGS="$(BUILD_FLAGS)" BENCH_DEBS="$(BENCH_DEBS)" bench/run

clean:
	$(SWIFT) package clean
