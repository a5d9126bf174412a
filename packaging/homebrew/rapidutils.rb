# Homebrew formula. url and sha256 are those of the release tarball (packaging/dist.sh makes it),
# to be filled in when it is published; packaging/homebrew/check.rb runs the install and test
# blocks against the source tree.
class Rapidutils < Formula
  desc "Fast drop-in GNU-compatible yes, cat and wc"
  homepage "https://example.org/rapidutils"
  url "https://example.org/rapidutils/rapidutils-0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license any_of: ["MIT", "Apache-2.0"]

  depends_on "rust" => :build

  def install
    # Only the multi-call binary goes into bin: yes, cat and wc would shadow the system's tools,
    # so they are links in libexec/"bin" (as coreutils' gnubin), and their pages rapidutils-NAME.1.
    system "cargo", "install", "--bin", "rapidutils", *std_cargo_args
    %w[yes cat wc].each { |tool| (libexec/"bin").install_symlink bin/"rapidutils" => tool }
    man1.install "man/rapidutils.1"
    %w[yes cat wc].each { |tool| man1.install "man/#{tool}.1" => "rapidutils-#{tool}.1" }
    bash_completion.install "completions/bash/rapidutils"
    zsh_completion.install "completions/zsh/_rapidutils"
    fish_completion.install "completions/fish/rapidutils.fish"
  end

  def caveats
    <<~EOS
      The tools run as `rapidutils TOOL`. To use them as yes, cat and wc,
      put this directory at the front of your PATH:
        #{opt_libexec}/bin
    EOS
  end

  test do
    assert_equal "y\ny\n", shell_output("#{bin}/rapidutils yes | head -n 2")
    (testpath/"f").write "one two\nthree\n"
    assert_equal "     1\tone two\n     2\tthree\n", shell_output("#{libexec}/bin/cat -n f")
    assert_equal " 2  3 14 f\n", shell_output("LC_ALL=C #{libexec}/bin/wc f")
    assert_match "rapidutils", shell_output("#{bin}/rapidutils --version")
    assert_equal "cat\nwc\nyes\n", shell_output("#{bin}/rapidutils --list")
  end
end
