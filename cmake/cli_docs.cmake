# Writes the man page and the bash completion of npu-advisor from the binary's own --help, so
# neither can fall behind the options (run by the build: target cli_docs in CMakeLists.txt):
#   cmake -DBIN=build/npu-advisor -DVERSION=0.1.0 -DMAN=out/npu-advisor.1 -DCOMPLETION=out/npu-advisor
#         -P cmake/cli_docs.cmake
# The page: NAME, SYNOPSIS, DESCRIPTION, each command's --help, EXIT STATUS, FILES, SEE ALSO.
# The completion: commands, each command's options, file names for paths, the values of --format.
cmake_minimum_required(VERSION 3.25)

function(help_of out)
  execute_process(COMMAND ${BIN} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${ARGN} --help failed (${rc})")
  endif()
  string(REPLACE "${BIN}" "npu-advisor" text "${text}")  # CLI11 prints argv[0] in its usage lines
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The subcommands listed in a --help text (lines "  name   description" after "Subcommands:").
function(subcommands_of text out)
  string(FIND "${text}" "Subcommands:" at)
  set(names "")
  if(NOT at EQUAL -1)
    string(SUBSTRING "${text}" ${at} -1 tail)
    string(REGEX MATCHALL "\n  [a-z][a-z-]*" found "${tail}")
    foreach(f IN LISTS found)
      string(STRIP "${f}" f)
      list(APPEND names ${f})
    endforeach()
  endif()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

# The options of a --help text ("-o,--output", "--threads", ...), as a list of words for compgen.
function(options_of text out)
  string(REGEX MATCHALL "\n  (-[a-zA-Z],)?--[a-z][a-z0-9-]*" found "${text}")
  set(words "")
  foreach(f IN LISTS found)
    string(STRIP "${f}" f)
    string(REPLACE "," ";" parts "${f}")
    list(APPEND words ${parts})
  endforeach()
  set(${out} ${words} PARENT_SCOPE)
endfunction()

# A --help text as a preformatted roff block.
function(roff_block text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" text "\n${text}")
  set(${out} ".nf${text}\n.fi\n" PARENT_SCOPE)
endfunction()

help_of(top)
subcommands_of("${top}" commands)

set(man ".TH NPU-ADVISOR 1 \"\" \"npu-advisor ${VERSION}\" \"User Commands\"
.SH NAME
npu-advisor \\- rule-based performance advisor for AI training and inference profiles
.SH SYNOPSIS
.B npu-advisor
.I COMMAND
.RI [ OPTIONS ]
.RI [ PATH ...]
.SH DESCRIPTION
npu-advisor reads the profiler output of an AI training or inference job \\(em Huawei Ascend
torch_npu, MindSpore and msprof exports (text or SQLite), PyTorch Kineto traces of CUDA, ROCm or
CPU runs \\(em computes facts about where each step's time goes, and runs rules on them that rank
findings by their estimated saving per step, each with its evidence and the commands to apply.
It compares two runs, gates a CI job on regressions, replays steps with fixes applied, captures a
new run under the profiler, and serves its tools to AI assistants over the Model Context Protocol
.RB ( mcp ).
The built-in rules, report templates and facts schema are compiled in: the binary needs no file
beside it.
.SH COMMANDS
")
set(completion_cases "")
foreach(cmd IN LISTS commands)
  help_of(text ${cmd})
  roff_block("${text}" block)
  string(APPEND man ".SS ${cmd}\n${block}")
  options_of("${text}" opts)
  subcommands_of("${text}" subs)
  foreach(sub IN LISTS subs)
    help_of(subtext ${cmd} ${sub})
    roff_block("${subtext}" block)
    string(APPEND man ".SS \"${cmd} ${sub}\"\n${block}")
    options_of("${subtext}" subopts)
    list(APPEND opts ${subopts})
  endforeach()
  list(REMOVE_DUPLICATES opts)
  list(JOIN opts " " opts)
  list(JOIN subs " " subwords)
  string(APPEND completion_cases "    ${cmd}) subs=\"${subwords}\" opts=\"${opts}\" ;;\n")
endforeach()
string(APPEND man ".SH EXIT STATUS
.TP
.B 0
ok
.TP
.B 1
gated: \\fBgate\\fR found a regression (\\fBrules test\\fR: a fixture failed)
.TP
.B 2
bad input or usage; one line on stderr names the file and the byte offset or line
.TP
.B 3
internal error
.PP
With a command after \\fB\\-\\-\\fR (\\fBanalyze\\fR, \\fBcapture\\fR), a non-zero exit code of the command is
passed on after the report, and 2 means nothing was captured.
.SH FILES
.TP
.I /usr/share/doc/npu-advisor/
README.md (quick start, usage, limits) and docs/: the facts (facts.md), rules (rules.md),
reports, compare and gate (compare-gate.md), what-if (whatif.md), the collector (collector.md),
the MCP server (mcp.md), the formats read (formats-supported.md).
.SH EXAMPLES
.nf
npu-advisor analyze run_ascend_pt \\-o report.html
npu-advisor compare base_ascend_pt new_ascend_pt
npu-advisor gate \\-\\-baseline perf/baseline.facts.json prof/*_ascend_pt \\-\\-max\\-regression step_time=5%
npu-advisor analyze prof \\-\\- python train.py \\-\\-epochs 1
npu-advisor mcp \\-\\-allow /data/profiles
.fi
.SH SEE ALSO
.BR msprof (1),
the Model Context Protocol: https://modelcontextprotocol.io
")
file(WRITE "${MAN}.tmp" "${man}")
file(COPY_FILE "${MAN}.tmp" "${MAN}" ONLY_IF_DIFFERENT)
file(REMOVE "${MAN}.tmp")

list(JOIN commands " " command_words)
set(completion "# bash completion for npu-advisor (written by cmake/cli_docs.cmake from its --help)
# File names through bash-completion's _filedir when it is loaded, else compgen (-d: folders).
_npu_advisor_files() {
  if declare -F _filedir >/dev/null; then
    _filedir \"\$@\"
  elif [[ \$1 == -d ]]; then
    COMPREPLY=(\$(compgen -d -- \"\$cur\"))
  else
    COMPREPLY=(\$(compgen -f -- \"\$cur\"))
  fi
}
_npu_advisor() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} words=(\"\${COMP_WORDS[@]}\") cword=\$COMP_CWORD
  fi
  if [[ \$cword -eq 1 ]]; then
    COMPREPLY=(\$(compgen -W \"${command_words} --help --version\" -- \"\$cur\"))
    return
  fi
  local subs=\"\" opts=\"\"
  case \${words[1]} in
${completion_cases}  esac
  case \$prev in
    --format) COMPREPLY=(\$(compgen -W \"text json md html\" -- \"\$cur\")); return ;;
    --profiler) COMPREPLY=(\$(compgen -W \"auto torch_npu msprof torch\" -- \"\$cur\")); return ;;
    --allow|--facts|--rules) _npu_advisor_files -d; return ;;
    -o|--output|--config|--junit|--markdown|--json|--baseline) _npu_advisor_files; return ;;
    --threads|--workers|--steps|--warmup|--wait|--timeout|--kill-grace|--set|--max-regression|--apply|--level|--aic-metrics|--fail-on-finding-saving) return ;;
  esac
  if [[ \$cword -eq 2 && -n \$subs ]]; then
    COMPREPLY=(\$(compgen -W \"\$subs\" -- \"\$cur\"))
  elif [[ \$cur == -* ]]; then
    COMPREPLY=(\$(compgen -W \"\$opts\" -- \"\$cur\"))
  else
    _npu_advisor_files
  fi
}
complete -F _npu_advisor npu-advisor
")
file(WRITE "${COMPLETION}.tmp" "${completion}")
file(COPY_FILE "${COMPLETION}.tmp" "${COMPLETION}" ONLY_IF_DIFFERENT)
file(REMOVE "${COMPLETION}.tmp")
