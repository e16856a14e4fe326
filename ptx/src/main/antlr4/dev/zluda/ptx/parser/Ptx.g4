/*
 * ANTLR 4 grammar for NVIDIA PTX (parallel thread execution) assembly, ISA up to 9.0,
 * as emitted by nvcc 12/13, clang's NVPTX back end and Triton.
 *
 * Written for zluda from the PTX ISA document's syntax chapters (4 "Syntax", 5 "State Spaces,
 * Types, and Variables", 11 "Directives"). Instructions (chapter 9) use one generic form:
 *     [@[!]guard] opcode{.modifier}* [operand {, operand}] ;
 * Which modifiers and operands go with which opcode is checked by the semantic layer
 * (dev.zluda.ptx.InstructionTable), not by the grammar, so the grammar stays LL(2) almost
 * everywhere and SLL prediction nearly always suffices.
 *
 * Directive keywords (.reg, .global, ...) are their own tokens; every other ".word" (types,
 * modifiers, section names) is a DOTID token. A DOTID may contain "::" parts (.shared::cta,
 * .L2::evict_last, .mbarrier::complete_tx::bytes) and may start with a digit (.2d).
 */
grammar Ptx;

// ---------------------------------------------------------------- module level

module
    : moduleItem* EOF
    ;

moduleItem
    : versionDirective
    | targetDirective
    | addressSizeDirective
    | fileDirective
    | sectionDirective
    | aliasDirective
    | pragmaDirective
    | function
    | variableDecl SEMI
    ;

versionDirective     : VERSION FLOAT_LIT ;
targetDirective      : TARGET ID (COMMA ID)* ;
addressSizeDirective : ADDRESS_SIZE INT_LIT ;
fileDirective        : FILE INT_LIT STRING (COMMA INT_LIT COMMA INT_LIT)? ;
aliasDirective       : ALIAS ID COMMA ID SEMI ;
pragmaDirective      : PRAGMA STRING (COMMA STRING)* SEMI ;

sectionDirective
    : SECTION DOTID LBRACE sectionItem* RBRACE
    ;

sectionItem
    : ID COLON                                             # sectionLabel
    | DOTID sectionValue (COMMA sectionValue)*             # sectionData
    ;

sectionValue
    : DOTID (op=(PLUS | MINUS) expr)?                      # sectionRefValue
    | expr                                                 # sectionExprValue
    ;

linkage : VISIBLE | EXTERN | WEAK | COMMON ;

// .entry / .func: declaration (ends with ';') or definition (has a body)
function
    : linkage* kind=(ENTRY | FUNC) attributeClause*
      (LPAREN paramList? RPAREN)?      // return parameters (only .func); see FunctionBuilder
      ID
      (LPAREN paramList? RPAREN)?
      functionDirective*
      (body=block | SEMI)
    ;

paramList : paramDecl (COMMA paramDecl)* ;

paramDecl : stateSpace declAttr* declarator ;

functionDirective
    : perfKw=(MAXNTID | REQNTID | MINNCTAPERSM | MAXNCTAPERSM | MAXNREG | MAXCLUSTERRANK
             | REQNCTAPERCLUSTER | EXPLICITCLUSTER | BLOCKSARECLUSTERS | NORETURN
             | ABI_PRESERVE | ABI_PRESERVE_CONTROL)
      (INT_LIT (COMMA INT_LIT)*)?
    | PRAGMA STRING (COMMA STRING)* SEMI
    ;

attributeClause
    : ATTRIBUTE LPAREN attributeItem (COMMA attributeItem)* RPAREN
    ;

attributeItem : DOTID (LPAREN expr (COMMA expr)* RPAREN)? ;

// ---------------------------------------------------------------- declarations

stateSpace : REG | SREG | CONST | GLOBAL | LOCAL | PARAM | SHARED | TEX ;

declAttr
    : ALIGN INT_LIT
    | DOTID
    | stateSpace              // only after .ptr in parameter lists: .ptr .global .align 16
    | attributeClause
    ;

variableDecl
    : linkage* stateSpace declAttr* declarator (COMMA declarator)*
    ;

declarator
    : ID (LT INT_LIT GT)? (LBRACK expr? RBRACK)* (EQ initializer)?
    ;

initializer
    : LBRACE ID EQ expr (COMMA ID EQ expr)* RBRACE         # samplerInit
    | LBRACE (initializer (COMMA initializer)*)? RBRACE    # listInit
    | expr                                                 # exprInit
    ;

// ---------------------------------------------------------------- function bodies

block
    : LBRACE statement* RBRACE
    ;

statement
    : ID (COLON | modifier* operandList? SEMI)                  # idStmt        // label or unguarded instruction
    | guard ID modifier* operandList? SEMI                      # guardedStmt
    | variableDecl SEMI                                         # declStmt
    | block                                                     # blockStmt
    | LOC INT_LIT INT_LIT INT_LIT (COMMA locAttr)*              # locStmt
    | PRAGMA STRING (COMMA STRING)* SEMI                        # pragmaStmt
    | CALLPROTOTYPE (LPAREN paramList? RPAREN)? ID
          LPAREN paramList? RPAREN NORETURN? SEMI               # protoStmt
    | BRANCHTARGETS ID (COMMA ID)* SEMI                         # branchTargetsStmt
    | CALLTARGETS ID (COMMA ID)* SEMI                           # callTargetsStmt
    ;

locAttr : ID expr+ ;

guard : AT NOT? ID ;

modifier : DOTID | REG | SREG | CONST | GLOBAL | LOCAL | PARAM | SHARED | TEX | WEAK | ALIAS ;   // .alias: membar.proxy.alias, fence.proxy.alias

operandList : operand (COMMA operand)* ;

// p|q (predicate pairs) and !p (negated predicates) parse as expressions and become
// PredPair / NegPred operands in the AST builder; that keeps this decision LL(1) but for '('.
operand
    : LBRACE (operand (COMMA operand)*)? RBRACE            # vectorOperand
    | LBRACK operand (COMMA operand)* RBRACK               # addressOperand
    | LPAREN (operand (COMMA operand)*)? RPAREN            # tupleOperand
    | expr                                                 # exprOperand
    ;

// ---------------------------------------------------------------- constant expressions (ISA 4.6)
// A flat operator chain; the AST builder applies C precedence and left associativity
// (precedence climbing), which is cheaper than ANTLR's left-recursive rule on the hot path.

expr
    : unary (binop unary)* (QUESTION expr COLON expr)?
    ;

binop
    : STAR | SLASH | PERCENT | PLUS | MINUS | SHL | SHR | LT | GT | LE | GE | EQEQ | NE
    | AMP | CARET | PIPE | ANDAND | OROR
    ;

unary : (MINUS | PLUS | NOT | TILDE)* primary ;

primary
    : ID (DOTID | LPAREN expr RPAREN)?                     # symbolPrimary   // name, %tid.x, generic(sym)
    | INT_LIT                                              # intPrimary
    | FLOAT_LIT                                            # floatPrimary
    | HEXFLOAT_LIT                                         # hexFloatPrimary
    | LPAREN expr RPAREN                                   # parenPrimary
    ;

// ================================================================ lexer

VERSION              : '.version' ;
TARGET               : '.target' ;
ADDRESS_SIZE         : '.address_size' ;
VISIBLE              : '.visible' ;
EXTERN               : '.extern' ;
WEAK                 : '.weak' ;
COMMON               : '.common' ;
ENTRY                : '.entry' ;
FUNC                 : '.func' ;
REG                  : '.reg' ;
SREG                 : '.sreg' ;
CONST                : '.const' ;
GLOBAL               : '.global' ;
LOCAL                : '.local' ;
PARAM                : '.param' ;
SHARED               : '.shared' ;
TEX                  : '.tex' ;
ALIGN                : '.align' ;
FILE                 : '.file' ;
LOC                  : '.loc' ;
SECTION              : '.section' ;
ALIAS                : '.alias' ;
PRAGMA               : '.pragma' ;
CALLPROTOTYPE        : '.callprototype' ;
CALLTARGETS          : '.calltargets' ;
BRANCHTARGETS        : '.branchtargets' ;
ATTRIBUTE            : '.attribute' ;
MAXNTID              : '.maxntid' ;
REQNTID              : '.reqntid' ;
MINNCTAPERSM         : '.minnctapersm' ;
MAXNCTAPERSM         : '.maxnctapersm' ;
MAXNREG              : '.maxnreg' ;
MAXCLUSTERRANK       : '.maxclusterrank' ;
REQNCTAPERCLUSTER    : '.reqnctapercluster' ;
EXPLICITCLUSTER      : '.explicitcluster' ;
BLOCKSARECLUSTERS    : '.blocksareclusters' ;
NORETURN             : '.noreturn' ;
ABI_PRESERVE         : '.abi_preserve' ;
ABI_PRESERVE_CONTROL : '.abi_preserve_control' ;

DOTID : '.' IDCHAR+ ('::' IDCHAR+)* ;

// 0fXXXXXXXX single precision, 0dXXXXXXXXXXXXXXXX double precision (ISA 4.5.3)
HEXFLOAT_LIT : '0' [fF] HEX HEX HEX HEX HEX HEX HEX HEX
             | '0' [dD] HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX HEX
             ;

FLOAT_LIT : DIGIT+ '.' DIGIT* EXPONENT?
          | DIGIT+ EXPONENT
          ;

// hexadecimal, octal, binary, decimal; optional U suffix (ISA 4.5.1)
INT_LIT : '0' [xX] HEX+ 'U'?
        | '0' [bB] [01]+ 'U'?
        | '0' [0-7]+ 'U'?
        | DIGIT+ 'U'?
        ;

ID : [a-zA-Z_$] IDCHAR*
   | '%' IDCHAR+
   ;

STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;

SHL      : '<<' ;
SHR      : '>>' ;
LE       : '<=' ;
GE       : '>=' ;
EQEQ     : '==' ;
NE       : '!=' ;
ANDAND   : '&&' ;
OROR     : '||' ;
LT       : '<' ;
GT       : '>' ;
EQ       : '=' ;
NOT      : '!' ;
TILDE    : '~' ;
PLUS     : '+' ;
MINUS    : '-' ;
STAR     : '*' ;
SLASH    : '/' ;
PERCENT  : '%' ;
AMP      : '&' ;
CARET    : '^' ;
PIPE     : '|' ;
QUESTION : '?' ;
COLON    : ':' ;
SEMI     : ';' ;
COMMA    : ',' ;
AT       : '@' ;
LPAREN   : '(' ;
RPAREN   : ')' ;
LBRACE   : '{' ;
RBRACE   : '}' ;
LBRACK   : '[' ;
RBRACK   : ']' ;

WS            : [ \t\r\n\f]+ -> skip ;
LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;

// Anything else becomes one ERROR_CHAR token so the parser reports it at its line:column.
ERROR_CHAR : . ;

fragment IDCHAR   : [a-zA-Z0-9_$] ;
fragment DIGIT    : [0-9] ;
fragment HEX      : [0-9a-fA-F] ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;
